// What the end-to-end tests run against: the real `codiva`, the real `claude` and the project's
// mock model server (`codiva-mock`), in a sandbox (temp HOME, TMPDIR, state dir; an allowlisted
// environment like the Rust end-to-end tests).
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Text;
using System.Threading;
using Codiva.Json;
using Codiva.Rpc;
using NUnit.Framework;

namespace Codiva.Tests
{
    public static class Paths
    {
        /// The repository root (run-tests.sh exports it).
        public static string Root => Env("CODIVA_REPO_ROOT", null) ?? throw new InvalidOperationException("CODIVA_REPO_ROOT is not set: run clients/unity/run-tests.sh");
        public static string Codiva => Env("CODIVA_BIN", System.IO.Path.Combine(Root, "target/debug/codiva"));
        public static string Mock => Env("CODIVA_MOCK_BIN", System.IO.Path.Combine(Root, "target/debug/codiva-mock"));
        public static string Claude => Env("CODIVA_TEST_CLAUDE", System.IO.Path.Combine(Root, "tools/agent-clis/node_modules/.bin/claude"));
        public static string Schema => System.IO.Path.Combine(Root, "docs/protocol.schema.json");

        static string Env(string name, string fallback)
        {
            var value = Environment.GetEnvironmentVariable(name);
            return string.IsNullOrEmpty(value) ? fallback : value;
        }

        /// A binary the tests need: missing is a failure, never a skip.
        public static string Require(string path)
        {
            if (!File.Exists(path)) Assert.Fail(path + " is missing (run-tests.sh builds codiva and installs the agent CLIs)");
            return path;
        }
    }

    /// A temporary directory removed at Dispose.
    public sealed class TempDir : IDisposable
    {
        public readonly string Path;
        public TempDir(string prefix)
        {
            Path = System.IO.Path.Combine(System.IO.Path.GetTempPath(), prefix + Guid.NewGuid().ToString("N").Substring(0, 10));
            Directory.CreateDirectory(Path);
        }
        public void Dispose()
        {
            try { Directory.Delete(Path, true); } catch (Exception) { }
        }
    }

    public static class Run
    {
        /// One argument of Program's argument string (ChildProcess's quoting).
        public static string Quote(string arg) => Codiva.Unity.ChildProcess.Quote(arg);

        /// Runs a program to completion; its output, or a failed assertion.
        public static string Program(string file, string args, string cwd, Dictionary<string, string> env = null)
        {
            var info = new ProcessStartInfo(file, args)
            {
                UseShellExecute = false,
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                WorkingDirectory = cwd,
            };
            if (env != null)
            {
                info.EnvironmentVariables.Clear();
                foreach (var pair in env) info.EnvironmentVariables[pair.Key] = pair.Value;
            }
            using (var process = Process.Start(info))
            {
                var error = process.StandardError.ReadToEndAsync();
                var output = process.StandardOutput.ReadToEnd();
                process.WaitForExit();
                Assert.AreEqual(0, process.ExitCode, file + " " + args + ": " + error.Result);
                return output;
            }
        }

        public static void Git(string repo, string args)
        {
            Program("git", args, repo, new Dictionary<string, string>
            {
                { "PATH", "/usr/local/bin:/usr/bin:/bin" },
                { "GIT_CONFIG_NOSYSTEM", "1" },
                { "GIT_CONFIG_GLOBAL", "/dev/null" },
                { "HOME", repo },
            });
        }
    }

    /// `codiva-mock --script <file>` on a free port; `Dispose` kills it.
    public sealed class MockModel : IDisposable
    {
        readonly Process process;
        public readonly string Url;
        public readonly string DumpPath;

        public MockModel(object script, string dir)
        {
            var scriptPath = System.IO.Path.Combine(dir, "script.json");
            DumpPath = System.IO.Path.Combine(dir, "requests.jsonl");
            File.WriteAllText(scriptPath, JsonText.Write(script));
            var info = new ProcessStartInfo(Paths.Require(Paths.Mock),
                "--script " + Run.Quote(scriptPath) + " --port 0 --dump " + Run.Quote(DumpPath))
            {
                UseShellExecute = false,
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                RedirectStandardInput = true,
            };
            process = Process.Start(info);
            process.ErrorDataReceived += (_, e) => { if (e.Data != null) lock (Log) Log.AppendLine(e.Data); };
            process.BeginErrorReadLine();
            var line = process.StandardOutput.ReadLine();
            Assert.IsNotNull(line, "codiva-mock wrote nothing");
            StringAssert.StartsWith("listening on ", line);
            Url = line.Substring("listening on ".Length).Trim();
        }

        /// One line per request the mock answered (`POST /v1/messages?beta=true -> rule 0`).
        public readonly StringBuilder Log = new StringBuilder();

        /// The request bodies received so far (dumped every 200 ms by codiva-mock).
        public List<object> Requests()
        {
            var list = new List<object>();
            if (!File.Exists(DumpPath)) return list;
            var text = File.ReadAllText(DumpPath);
            // Whole lines only: codiva-mock may be writing the last one.
            var complete = text.Substring(0, text.LastIndexOf('\n') + 1);
            foreach (var line in complete.Split('\n'))
                if (line.Trim().Length > 0) list.Add(JsonText.Parse(line));
            return list;
        }

        /// The first request body (as JSON text) that `match` accepts, once the dump has it
        /// (codiva-mock writes it a moment after answering).
        public string WaitForRequest(Func<string, bool> match)
        {
            var deadline = DateTime.UtcNow.AddSeconds(60);
            while (true)
            {
                foreach (var request in Requests())
                {
                    var body = JsonText.Write(JsonRead.Get(request, "body"));
                    if (match(body)) return body;
                }
                if (DateTime.UtcNow > deadline) Assert.Fail("the mock never received the request");
                Thread.Sleep(100);
            }
        }

        public void Dispose()
        {
            try { process.Kill(); process.WaitForExit(); } catch (Exception) { }
            process.Dispose();
        }
    }

    /// A sandbox for one test: a git repository on `main` with one commit, HOME, TMPDIR, the
    /// state dir and config of codiva, the mock model server.
    public sealed class World : IDisposable
    {
        readonly TempDir root = new TempDir("codiva-unity-");
        public readonly string Repo, Home, Tmp, State, Config, Runtime;
        public readonly MockModel Mock;

        public World(object script) : this(repo => script) { }

        /// A world whose mock script names paths of its repository (`script` is given its path).
        public World(Func<string, object> script)
        {
            Repo = Dir("repo");
            Home = Dir("home");
            Tmp = Dir("tmp");
            State = Dir("state");
            Config = System.IO.Path.Combine(State, "config.toml");
            // The daemon's socket directory: its own, and short (a socket path is at most 107 bytes).
            Runtime = Dir("run");
            // Titles from the prompt: a one-shot title request would take the mock's scripted answers.
            File.WriteAllText(Config, "fetch_base = false\ntitles = \"prompt\"\n");
            File.WriteAllText(System.IO.Path.Combine(Repo, "README.md"), "# test repo\n");
            Run.Git(Repo, "init -q -b main");
            Run.Git(Repo, "config user.name \"Codiva Test\"");
            Run.Git(Repo, "config user.email test@codiva.invalid");
            Run.Git(Repo, "config commit.gpgsign false");
            Run.Git(Repo, "add README.md");
            Run.Git(Repo, "commit -q -m initial");
            Mock = new MockModel(script(Repo), Dir("mock"));
        }

        string Dir(string name)
        {
            var path = System.IO.Path.Combine(root.Path, name);
            Directory.CreateDirectory(path);
            return path;
        }

        /// The allowlisted environment of the agent CLI (and of codiva, which passes it on).
        public Dictionary<string, string> AgentEnvironment()
        {
            var path = "/usr/local/bin:/usr/bin:/bin";
            foreach (var dir in (Environment.GetEnvironmentVariable("PATH") ?? "").Split(':'))
            {
                if (dir.Length > 0 && File.Exists(System.IO.Path.Combine(dir, "node")))
                {
                    if (Array.IndexOf(path.Split(':'), dir) < 0) path = dir + ":" + path;
                    break;
                }
            }
            return new Dictionary<string, string>
            {
                { "PATH", path },
                { "HOME", Home },
                { "TMPDIR", Tmp },
                { "LANG", "C.UTF-8" },
                { "ANTHROPIC_BASE_URL", Mock.Url },
                { "ANTHROPIC_API_KEY", "sk-mock" },
                { "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1" },
                { "CLAUDE_CODE_MAX_RETRIES", "2" },
            };
        }

        /// `codiva` for this world: the agent environment plus codiva's own settings.
        public CodivaProgram Program()
        {
            var env = AgentEnvironment();
            env["CODIVA_CLAUDE"] = Paths.Require(Paths.Claude);
            env["CODIVA_STATE_DIR"] = State;
            env["CODIVA_CONFIG"] = Config;
            env["XDG_RUNTIME_DIR"] = Runtime;
            return new CodivaProgram { Path = Paths.Require(Paths.Codiva), Repo = Repo, Environment = env };
        }

        /// `codiva stop`: the repository's daemon, if one was started, stops (its agents reaped,
        /// its socket removed). No daemon outlives a test.
        public void StopDaemon()
        {
            var program = Program();
            Run.Program(program.Path, "stop --repo " + Run.Quote(Repo), Repo, program.Environment);
        }

        public void Dispose()
        {
            try { StopDaemon(); }
            finally
            {
                Mock.Dispose();
                root.Dispose();
            }
        }
    }

    /// Builders for mock scripts (docs/mock-server.md's JSON form).
    public static class Script
    {
        public static Dictionary<string, object> Rules(params object[] rules) =>
            new Dictionary<string, object> { { "rules", new List<object>(rules) } };

        public static Dictionary<string, object> When(string match, string text, object reply, object times = null)
        {
            var rule = new Dictionary<string, object>
            {
                { "when", new Dictionary<string, object> { { match, text } } },
                { "reply", reply },
            };
            if (times != null) rule["times"] = times;
            return rule;
        }

        public static Dictionary<string, object> ToolUse(string name, Dictionary<string, object> input) =>
            new Dictionary<string, object>
            {
                { "type", "message" },
                { "blocks", new List<object> { new Dictionary<string, object> { { "type", "tool_use" }, { "name", name }, { "input", input } } } },
            };

        public static Dictionary<string, object> Text(string text, int chunkChars = 16, int delayMs = 0) =>
            new Dictionary<string, object>
            {
                { "type", "message" },
                { "blocks", new List<object> { new Dictionary<string, object> { { "type", "text" }, { "text", text }, { "chunk_chars", chunkChars }, { "delay_ms", delayMs } } } },
            };

        public static Dictionary<string, object> Obj(params object[] pairs)
        {
            var obj = new Dictionary<string, object>();
            for (var i = 0; i + 1 < pairs.Length; i += 2) obj[(string)pairs[i]] = pairs[i + 1];
            return obj;
        }

        public static List<object> List(params object[] items) => new List<object>(items);

        /// The name Claude Code gives the panel's Ops tool `name` (what a ToolUse calls).
        public static string OpsTool(string name) => "mcp__" + Codiva.Ops.PanelSession.OpsServerName + "__" + name;
    }

    /// How the end-to-end tests wait: for a state, never for the clock.
    public static class Waits
    {
        /// The longest a test waits for one state.
        public static readonly TimeSpan Limit = TimeSpan.FromSeconds(120);

        /// Runs `main`'s callbacks until `condition` holds (failing after [Limit]), and fails when
        /// a callback threw.
        public static void Until(Codiva.Client.ThreadDispatcher main, Func<bool> condition, string what)
        {
            Assert.IsTrue(main.WaitUntil(condition, Limit), "timed out waiting for " + what);
            Assert.IsNull(main.Failure, "a callback failed: " + main.Failure);
        }
    }
}
