// The one way the panel runs a program to its end (the clipboard's helpers, the installs'
// commands, `codiva attach`): an argument vector, never a shell string, started in a process
// group of its own — `setsid` on Linux, on macOS `perl`'s setpgrp (perl being part of macOS), the
// program exec'd in place so that its pid is the group's id — with a deadline and a cap on the
// output it keeps. Past either, the whole group is killed (SIGKILL to the group: the program and
// everything it started and left in it) and the program reaped; when the program exits by itself,
// what it left behind in its group is killed too, so nothing of it outlives the run or holds its
// pipes open. The program is looked for on PATH first: a missing one is an outcome, not an
// exception. (`codiva serve --stdio`, a connection rather than a run, is StdioTransport's.)
//
// Windows is not built (nor is the panel's transport there): nothing is started, and the outcome
// says so (NotOnWindows), with the command for the user to run in a terminal. A Windows build
// would run the program in a job object and kill the job.
using System;
using System.Collections.Generic;
using System.ComponentModel;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Runtime.InteropServices;
using System.Text;
using System.Threading;
using Codiva.Panel;

namespace Codiva.Unity
{
    /// The system the Editor runs on (Application.platform), for how a child gets its group.
    public enum ChildOs { Linux, Mac, Windows }

    /// How a run ended.
    public enum ChildEnd
    {
        /// It exited by itself (ExitCode says how).
        Exited,
        /// The program is not on PATH (or not at the path given): nothing was started.
        NotFound,
        /// The system could not start it (Problem says why).
        NotStarted,
        /// It outlived its deadline: its group was killed.
        TimedOut,
        /// It printed more than the cap: its group was killed.
        TooMuchOutput,
        /// Not run: the panel does not run commands on Windows.
        NotOnWindows,
    }

    /// A program to run: `Argv[0]` is the program (a name looked for on PATH, or a path).
    public sealed class ChildCommand
    {
        public IReadOnlyList<string> Argv;
        public int TimeoutMs = ChildProcess.CommandTimeoutMs;
        /// The most output kept (stdout, and stderr when KeepErrors); past it the run is stopped.
        public long MaxOutputBytes = ChildProcess.CommandMaxOutputBytes;
        /// Keep stderr (counted with stdout against the cap); otherwise it is read and dropped.
        public bool KeepErrors = true;
        /// The child's PATH, where the program is looked for; null: the environment's.
        public string Path;
        /// When set, the child's environment is exactly this (its PATH too, unless Path is set);
        /// null: this process's.
        public Dictionary<string, string> Environment;
        /// Where the child runs; null: this process's directory.
        public string WorkingDirectory;
        public ChildOs Os = ChildOs.Linux;
    }

    public sealed class ChildResult
    {
        public ChildEnd End;
        /// The exit code when it exited; -1 otherwise.
        public int ExitCode = -1;
        /// What it wrote on stdout, up to the cap.
        public byte[] Output = new byte[0];
        /// What it wrote on stderr, up to the cap (empty unless KeepErrors).
        public byte[] Errors = new byte[0];
        /// Why it did not start (NotStarted), in the system's words.
        public string Problem = "";
    }

    public static class ChildProcess
    {
        /// A command's deadline: an `npm install -g` or a `claude plugin install` (a git clone)
        /// over a slow network takes minutes; ten is well past what they take when they work.
        public const int CommandTimeoutMs = 10 * 60 * 1000;
        /// A command's output kept: far more than an install prints.
        public const long CommandMaxOutputBytes = 1024 * 1024;
        /// How long the kill and the reap are waited for.
        const int ReapMs = 5000;

        /// The program `name` on `path` (folders separated by ':', or ';' with `windows`): the
        /// first of `names` found in the first folder holding one; relative folders are skipped.
        /// A name holding a directory separator is taken as it is when it is a file. Null when none.
        public static string OnPath(string path, IReadOnlyList<string> names, Func<string, bool> isFile, bool windows = false)
        {
            if (names == null || isFile == null) return null;
            foreach (var name in names)
                if (name.IndexOf('/') >= 0 || (windows && name.IndexOf('\\') >= 0))
                    return isFile(name) ? name : null;
            if (string.IsNullOrEmpty(path)) return null;
            foreach (var dir in path.Split(windows ? ';' : ':'))
            {
                var folder = dir.Trim().Trim('"');
                if (folder.Length == 0 || !Rooted(folder, windows)) continue;
                foreach (var name in names)
                {
                    var file = System.IO.Path.Combine(folder, name);
                    if (isFile(file)) return file;
                }
            }
            return null;
        }

        // Windows' own form (`C:\…`, `\\server\…`) is read as such on any system (the tests run on Linux).
        static bool Rooted(string folder, bool windows) => windows
            ? (folder.Length >= 3 && char.IsLetter(folder[0]) && folder[1] == ':' && (folder[2] == '\\' || folder[2] == '/')) || folder.StartsWith("\\\\", StringComparison.Ordinal)
            : folder.StartsWith("/", StringComparison.Ordinal);

        /// One argument of ProcessStartInfo's argument string, as Mono on Linux and macOS splits
        /// it (a shell's double quotes: a backslash escapes a quote or a backslash).
        public static string Quote(string arg) => "\"" + arg.Replace("\\", "\\\\").Replace("\"", "\\\"") + "\"";

        /// How `command` starts in a process group of its own (its program found on PATH first),
        /// or null with `refusal` saying why there is nothing to start (NotFound, NotOnWindows).
        static ProcessStartInfo GroupStart(ChildCommand command, out ChildEnd refusal)
        {
            refusal = command.Os == ChildOs.Windows ? ChildEnd.NotOnWindows : ChildEnd.NotFound;
            if (command.Os == ChildOs.Windows) return null;
            var argv = command.Argv;
            string path = command.Path;
            if (path == null && command.Environment != null) command.Environment.TryGetValue("PATH", out path);
            else if (path == null) path = System.Environment.GetEnvironmentVariable("PATH");
            var program = argv == null || argv.Count == 0 || string.IsNullOrEmpty(argv[0]) ? null
                : OnPath(path, new[] { argv[0] }, File.Exists);
            if (program == null) return null;

            // The program is exec'd in place by the wrapper: its pid is the new group's id.
            var args = new StringBuilder();
            string wrapper;
            if (command.Os == ChildOs.Mac)
            {
                wrapper = "/usr/bin/perl";
                args.Append("-e ").Append(Quote("setpgrp(0,0); exec @ARGV or exit 127")).Append(' ');
            }
            else wrapper = "setsid";
            args.Append(Quote(program));
            for (var i = 1; i < argv.Count; i++) args.Append(' ').Append(Quote(argv[i] ?? ""));
            var info = new ProcessStartInfo(wrapper, args.ToString())
            {
                UseShellExecute = false,
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                RedirectStandardInput = true,
                CreateNoWindow = true,
                StandardOutputEncoding = new UTF8Encoding(false),
                StandardErrorEncoding = new UTF8Encoding(false),
            };
            if (command.Environment != null)
            {
                info.EnvironmentVariables.Clear();
                foreach (var pair in command.Environment) info.EnvironmentVariables[pair.Key] = pair.Value;
            }
            if (command.Path != null) info.EnvironmentVariables["PATH"] = command.Path;
            if (command.WorkingDirectory != null) info.WorkingDirectory = command.WorkingDirectory;
            return info;
        }

        /// Starts `command` in a process group of its own for the caller to talk to (stdin,
        /// stdout and stderr redirected; its deadline and cap are not used) and to end: KillGroup
        /// with its pid ends it with all it started. IOException when there is nothing to start.
        public static Process Start(ChildCommand command)
        {
            var info = GroupStart(command, out var refusal);
            if (info == null)
                throw new IOException(refusal == ChildEnd.NotOnWindows ? "not run on Windows" : (command.Argv?.FirstOrDefault() ?? "(no program)") + " was not found on PATH");
            try { return Process.Start(info); }
            catch (Win32Exception e) { throw new IOException(info.FileName + ": " + e.Message, e); }
        }

        /// Runs `command` to its end (blocking: call it off the Editor's thread).
        public static ChildResult Run(ChildCommand command)
        {
            var result = new ChildResult();
            var info = GroupStart(command, out var refusal);
            if (info == null) { result.End = refusal; return result; }
            Process process;
            try { process = Process.Start(info); }
            catch (Exception e) when (e is Win32Exception || e is InvalidOperationException || e is IOException)
            {
                result.End = ChildEnd.NotStarted;
                result.Problem = info.FileName + ": " + e.Message;
                return result;
            }
            using (process)
            {
                try { process.StandardInput.Close(); } catch (IOException) { }
                var kept = new Kept(command.MaxOutputBytes);
                var output = new MemoryStream();
                var errors = new MemoryStream();
                var readers = new[]
                {
                    kept.Reader(process.StandardOutput.BaseStream, output),
                    kept.Reader(process.StandardError.BaseStream, command.KeepErrors ? errors : null),
                };
                var deadline = DateTime.UtcNow.AddMilliseconds(command.TimeoutMs);
                var exited = false;
                while (!kept.Over && !(exited = process.WaitForExit(50)))
                    if (DateTime.UtcNow >= deadline) break;
                // The whole group: all of it past the deadline or the cap; what the program left
                // behind when it exited by itself.
                KillGroup(process.Id);
                if (!exited) process.WaitForExit(ReapMs);
                foreach (var reader in readers) reader.Join(ReapMs);
                lock (kept)
                {
                    result.Output = output.ToArray();
                    result.Errors = errors.ToArray();
                }
                if (kept.Over) result.End = ChildEnd.TooMuchOutput;
                else if (!exited) result.End = ChildEnd.TimedOut;
                else
                {
                    result.End = ChildEnd.Exited;
                    result.ExitCode = process.ExitCode;
                }
                return result;
            }
        }

        // What the readers keep, the cap counted over both streams.
        sealed class Kept
        {
            readonly long max;
            long count;
            volatile bool over;
            public Kept(long max) { this.max = max; }
            public bool Over => over;

            /// Reads `stream` to its end on a thread of its own, into `into` (null: dropped)
            /// until the cap; past it, Over and no more is read.
            public Thread Reader(Stream stream, MemoryStream into)
            {
                var thread = new Thread(() =>
                {
                    var chunk = new byte[64 * 1024];
                    int read;
                    try
                    {
                        while ((read = stream.Read(chunk, 0, chunk.Length)) > 0)
                        {
                            if (into == null) continue;
                            lock (this)
                            {
                                var room = (int)Math.Min(read, Math.Max(0, max - count));
                                into.Write(chunk, 0, room);
                                count += room;
                                if (room < read) { over = true; return; }
                            }
                        }
                    }
                    catch (IOException) { }
                    catch (ObjectDisposedException) { }
                }) { IsBackground = true, Name = "codiva-child-output" };
                thread.Start();
                return thread;
            }
        }

        [DllImport("libc", SetLastError = true)]
        static extern int kill(int pid, int signal);

        const int SIGKILL = 9;

        /// SIGKILL to the group whose id is `id` (the pid of a program started here); nothing
        /// when it is gone.
        public static void KillGroup(int id)
        {
            // kill(-1) would be every process the user has: never anything but a real group.
            if (id <= 1) return;
            kill(-id, SIGKILL);
        }
    }

    /// What a command printed and how it ended.
    public sealed class CommandOutcome
    {
        public ChildEnd End = ChildEnd.Exited;
        public int ExitCode;
        /// What it printed (stdout, then stderr).
        public string Output = "";
        /// The program as it was asked for (argv[0]).
        public string Program = "";
        /// The command line, for the words of NotOnWindows.
        public string CommandLine = "";
        /// Why it did not start (NotStarted).
        public string Problem = "";
        /// The deadline and the cap it ran under (for the words of TimedOut and TooMuchOutput).
        public int TimeoutMs;
        public long MaxOutputBytes;

        public bool Succeeded => End == ChildEnd.Exited && ExitCode == 0;

        /// How it ended, in the panel's words: "" when it succeeded, `exit N` when it exited
        /// otherwise, else why it was stopped or never started.
        public string Ending(Language language)
        {
            switch (End)
            {
                case ChildEnd.Exited: return ExitCode == 0 ? "" : "exit " + ExitCode;
                case ChildEnd.NotFound: return Strings.Format(Str.CommandNotFound, language, Program);
                case ChildEnd.NotStarted: return Strings.Format(Str.CommandNotStarted, language, Program, Problem);
                case ChildEnd.TimedOut: return Strings.Format(Str.CommandTimedOut, language, Program, Words.Duration(TimeoutMs, language));
                case ChildEnd.TooMuchOutput: return Strings.Format(Str.CommandTooMuchOutput, language, Program, MaxOutputBytes / 1024);
                default: return Strings.Format(Str.CommandNotOnWindows, language, CommandLine);
            }
        }
    }

    /// Runs one program with its arguments (argv[0] is the program; no shell) and calls `done`
    /// once, from any thread, when it has ended.
    public interface ICommandRunner
    {
        void Run(IReadOnlyList<string> argv, Action<CommandOutcome> done);
    }

    /// The Editor's ICommandRunner: each command through ChildProcess (its own group, the
    /// deadline, the cap) on a thread of its own.
    public sealed class ProcessGroupRunner : ICommandRunner
    {
        readonly ChildOs os;
        readonly int timeoutMs;
        readonly long maxOutputBytes;
        readonly string path;

        /// `path`: the commands' PATH (null: the Editor's).
        public ProcessGroupRunner(ChildOs os, int timeoutMs = ChildProcess.CommandTimeoutMs, long maxOutputBytes = ChildProcess.CommandMaxOutputBytes, string path = null)
        {
            this.os = os;
            this.timeoutMs = timeoutMs;
            this.maxOutputBytes = maxOutputBytes;
            this.path = path;
        }

        public void Run(IReadOnlyList<string> argv, Action<CommandOutcome> done) =>
            new Thread(() => done(RunNow(argv))) { IsBackground = true, Name = "codiva-command" }.Start();

        /// The command run to its end on the caller's thread.
        public CommandOutcome RunNow(IReadOnlyList<string> argv)
        {
            var run = ChildProcess.Run(new ChildCommand { Argv = argv, TimeoutMs = timeoutMs, MaxOutputBytes = maxOutputBytes, Path = path, Os = os });
            var utf8 = new UTF8Encoding(false);
            return new CommandOutcome
            {
                End = run.End,
                ExitCode = run.ExitCode,
                Output = (utf8.GetString(run.Output) + utf8.GetString(run.Errors)).TrimEnd(),
                Program = argv != null && argv.Count > 0 ? argv[0] ?? "" : "",
                CommandLine = argv == null ? "" : string.Join(" ", argv),
                Problem = run.Problem,
                TimeoutMs = timeoutMs,
                MaxOutputBytes = maxOutputBytes,
            };
        }
    }
}
