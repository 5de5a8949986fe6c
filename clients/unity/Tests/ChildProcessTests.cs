// A program the panel runs (Codiva.Unity.ChildProcess, ProcessGroupRunner), with stand-in
// programs (shell scripts) on the PATH: one that forks a child and outlives its deadline is killed
// with its whole group (the child's pid is gone) and the outcome says it timed out, in EN and JA;
// one that prints past the cap is killed the same way with what it printed up to the cap; one that
// exits leaving a child behind has that child killed; a missing program is an outcome, not an
// exception; the arguments reach the program as they were; on Windows nothing is started. And an
// install run through the runner says the timeout in the panel's words (UloopInstall).
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading;
using Codiva.Panel;
using Codiva.Unity;
using NUnit.Framework;

namespace Codiva.Tests
{
    [TestFixture]
    public class ChildProcessTests
    {
        TempDir dir;
        string bin;

        [SetUp]
        public void Start()
        {
            dir = new TempDir("codiva-child-");
            bin = Path.Combine(dir.Path, "bin");
            Directory.CreateDirectory(bin);
        }

        [TearDown]
        public void End() => dir.Dispose();

        string PidFile(string name) => Path.Combine(dir.Path, name + ".pid");

        void Program(string name, string body)
        {
            var path = Path.Combine(bin, name);
            File.WriteAllText(path, "#!/bin/sh\n" + body + "\n");
            Run.Program("chmod", "+x " + path, dir.Path);
        }

        /// Only the stand-ins and the system's tools (sh, sleep, head, tr, printf).
        string PathWith => bin + ":/usr/bin:/bin";

        ProcessGroupRunner Runner(int timeoutMs = 60000, long maxBytes = ChildProcess.CommandMaxOutputBytes) =>
            new ProcessGroupRunner(ChildOs.Linux, timeoutMs, maxBytes, PathWith);

        /// The process whose pid `pidFile` holds is gone (or a zombie awaiting its reaper: it was
        /// killed and its parent, init, has not reaped it yet).
        public static bool Gone(string pidFile)
        {
            for (var i = 0; i < 100; i++)
            {
                if (File.Exists(pidFile) && File.ReadAllText(pidFile).Trim().Length > 0)
                {
                    var status = "/proc/" + File.ReadAllText(pidFile).Trim() + "/status";
                    if (!File.Exists(status) || File.ReadAllLines(status).Any(l => l.StartsWith("State:") && l.Contains("Z"))) return true;
                }
                Thread.Sleep(100);
            }
            return false;
        }

        [Test]
        public void A_command_past_its_deadline_is_stopped_with_its_whole_group_and_says_so()
        {
            Program("npm", "echo $$ > " + PidFile("self") + "; sleep 60 & echo $! > " + PidFile("child") + "; echo installing; wait");
            var outcome = Runner(timeoutMs: 2000).RunNow(new[] { "npm", "install", "-g", "uloop-cli" });
            Assert.AreEqual(ChildEnd.TimedOut, outcome.End);
            Assert.IsFalse(outcome.Succeeded);
            Assert.IsTrue(Gone(PidFile("child")), "the program's own child was killed with it");
            Assert.IsTrue(Gone(PidFile("self")), "the program was killed");
            Assert.AreEqual("installing", outcome.Output, "what it printed before is kept");
            Assert.AreEqual("npm did not finish within 2s: it was stopped, with every process it started", outcome.Ending(Language.En));
            Assert.AreEqual("npm が2秒以内に終わらなかったため、それが起動したプロセスごと停止しました", outcome.Ending(Language.Ja));
            Assert.AreEqual("npm did not finish within 10m 00s: it was stopped, with every process it started",
                new CommandOutcome { End = ChildEnd.TimedOut, Program = "npm", TimeoutMs = ChildProcess.CommandTimeoutMs }.Ending(Language.En));
        }

        [Test]
        public void A_command_past_the_output_cap_is_stopped_with_its_whole_group()
        {
            Program("chatty", "sleep 60 & echo $! > " + PidFile("child") + "; head -c 200000 /dev/zero | tr '\\0' x; wait");
            var outcome = Runner(maxBytes: 100000).RunNow(new[] { "chatty" });
            Assert.AreEqual(ChildEnd.TooMuchOutput, outcome.End);
            Assert.AreEqual(new string('x', 100000), outcome.Output, "kept up to the cap");
            Assert.IsTrue(Gone(PidFile("child")), "the program's own child was killed with it");
            Assert.AreEqual("chatty printed more than 97 KB: it was stopped, with every process it started", outcome.Ending(Language.En));
            Assert.AreEqual("chatty の出力が 97 KB を超えたため、それが起動したプロセスごと停止しました", outcome.Ending(Language.Ja));
        }

        [Test]
        public void What_a_command_leaves_behind_when_it_exits_is_killed()
        {
            Program("leaves", "sleep 60 & echo $! > " + PidFile("child") + "; echo done; exit 0");
            var outcome = Runner().RunNow(new[] { "leaves" });
            Assert.AreEqual(ChildEnd.Exited, outcome.End);
            Assert.IsTrue(outcome.Succeeded);
            Assert.AreEqual("done", outcome.Output);
            Assert.AreEqual("", outcome.Ending(Language.En));
            Assert.IsTrue(Gone(PidFile("child")), "nothing of it outlives the run");
        }

        [Test]
        public void A_missing_program_is_an_outcome_not_an_exception()
        {
            var outcome = Runner().RunNow(new[] { "no-such-program", "install" });
            Assert.AreEqual(ChildEnd.NotFound, outcome.End);
            Assert.IsFalse(outcome.Succeeded);
            Assert.AreEqual("no-such-program was not found on the Editor's PATH: nothing was run", outcome.Ending(Language.En));
            Assert.AreEqual("no-such-program がエディターの実行パスに見つからないため、何も実行していません", outcome.Ending(Language.Ja));
            Assert.AreEqual(ChildEnd.NotFound, Runner().RunNow(new[] { Path.Combine(bin, "absent") }).End, "a path that is no file");
            Assert.AreEqual(ChildEnd.NotFound, Runner().RunNow(new string[0]).End);
            // Through Run: `done` is called once, off the caller's thread.
            var ended = new ManualResetEventSlim();
            CommandOutcome late = null;
            Runner().Run(new[] { "no-such-program" }, o => { late = o; ended.Set(); });
            Assert.IsTrue(ended.Wait(10000));
            Assert.AreEqual(ChildEnd.NotFound, late.End);
        }

        [Test]
        public void The_arguments_reach_the_program_as_they_were_and_its_output_and_exit_code_come_back()
        {
            Program("args", "printf '[%s]\\n' \"$@\"; echo problem >&2; exit 3");
            var args = new[] { "a b", "a\\b", "a\\\\b", "a\"b", "x\\", "'q'", "$HOME", "", "ü«»" };
            var outcome = Runner().RunNow(new[] { "args" }.Concat(args).ToArray());
            Assert.AreEqual(ChildEnd.Exited, outcome.End);
            Assert.AreEqual(3, outcome.ExitCode);
            Assert.AreEqual(string.Join("\n", args.Select(a => "[" + a + "]")) + "\nproblem", outcome.Output, "stdout, then stderr");
            Assert.AreEqual("exit 3", outcome.Ending(Language.Ja));
        }

        [Test]
        public void On_windows_nothing_is_started_and_the_words_give_the_command()
        {
            Program("npm", "touch " + PidFile("ran"));
            var outcome = new ProcessGroupRunner(ChildOs.Windows, path: PathWith).RunNow(new[] { "npm", "install", "-g", "uloop-cli" });
            Assert.AreEqual(ChildEnd.NotOnWindows, outcome.End);
            Assert.IsFalse(File.Exists(PidFile("ran")));
            Assert.AreEqual("The panel does not run commands on Windows (it is not built there); run this in a terminal: npm install -g uloop-cli", outcome.Ending(Language.En));
            StringAssert.EndsWith("端末で実行してください: npm install -g uloop-cli", outcome.Ending(Language.Ja));
        }

        [Test]
        public void The_program_is_the_first_on_path_and_relative_folders_are_skipped()
        {
            var files = new HashSet<string> { "/opt/a/npm", "/opt/b/npm", "rel/npm", "/x/y" };
            Assert.AreEqual("/opt/a/npm", ChildProcess.OnPath("rel:/opt/a:/opt/b", new[] { "npm" }, files.Contains));
            Assert.AreEqual("/opt/b/npm", ChildProcess.OnPath("rel:/opt/none:/opt/b", new[] { "npm" }, files.Contains));
            Assert.IsNull(ChildProcess.OnPath("rel", new[] { "npm" }, files.Contains));
            Assert.AreEqual("/x/y", ChildProcess.OnPath(null, new[] { "/x/y" }, files.Contains), "a path is taken as it is");
            Assert.IsNull(ChildProcess.OnPath("/x", new[] { "/x/z" }, files.Contains));
        }

        sealed class Manifest : IFileReader, IFileWriter
        {
            public string Text = "{\"dependencies\":{}}";
            public string ReadText(string path) => Text;
            public void WriteText(string path, string text) => Text = text;
        }

        [Test]
        public void An_install_past_its_deadline_fails_with_the_words_of_it_and_leaves_nothing_running()
        {
            Program("npm", "sleep 60 & echo $! > " + PidFile("child") + "; echo fetching; wait");
            var install = new UloopInstall(Runner(timeoutMs: 2000), new Manifest(), new Manifest(), "/p", () => new UloopPresence { Package = true });
            var ended = new ManualResetEventSlim();
            install.Changed += () => { if (install.State != InstallState.Running) ended.Set(); };
            install.Click();
            Assert.IsTrue(ended.Wait(30000), "the install ended");
            Assert.AreEqual(InstallState.Failed, install.State);
            Assert.IsTrue(Gone(PidFile("child")));
            Assert.AreEqual("$ npm install -g uloop-cli\nfetching\nnpm did not finish within 2s: it was stopped, with every process it started", install.Output(Language.En));
            StringAssert.EndsWith("\nnpm が2秒以内に終わらなかったため、それが起動したプロセスごと停止しました", install.Output(Language.Ja));
            Assert.AreEqual(Strings.Get(Str.UloopInstallFailed, Language.Ja), Uloop.StatusWords(new UloopPresence { Package = true }, install.State, Language.Ja));
        }
    }
}
