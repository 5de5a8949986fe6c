// The Editor's side of the Unity official plugin (Core/Unity/UnityPlugin.cs): the disk as
// IFileReader and a child process per argument vector as ICommandRunner (no shell: the program is
// started directly, its arguments quoted for ProcessStartInfo). The settings foldout runs the
// install only when the user clicks its button and shows what the commands printed.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Text;
using System.Threading;
using Codiva.Rpc;
using Codiva.Unity;

namespace Codiva.Editor
{
    public sealed class DiskFiles : IFileReader
    {
        public const long MaxFileBytes = 4 * 1024 * 1024;

        public string ReadText(string path)
        {
            try { return File.Exists(path) && new FileInfo(path).Length <= MaxFileBytes ? File.ReadAllText(path) : null; }
            catch (Exception e) when (e is IOException || e is UnauthorizedAccessException) { return null; }
        }

        /// The user's Claude Code folder (`~/.claude`).
        public static string ClaudeDir() => UnityPlugin.ClaudeDir(Environment.GetFolderPath(Environment.SpecialFolder.UserProfile));
    }

    public sealed class ProcessRunner : ICommandRunner
    {
        public void Run(IReadOnlyList<string> argv, Action<CommandOutcome> done)
        {
            ThreadPool.QueueUserWorkItem(_ =>
            {
                var outcome = new CommandOutcome { ExitCode = -1 };
                try
                {
                    var info = new ProcessStartInfo(argv[0], string.Join(" ", argv.Skip(1).Select(CodivaProgram.Quote)))
                    {
                        UseShellExecute = false,
                        RedirectStandardOutput = true,
                        RedirectStandardError = true,
                        RedirectStandardInput = true,
                        CreateNoWindow = true,
                        StandardOutputEncoding = new UTF8Encoding(false),
                        StandardErrorEncoding = new UTF8Encoding(false),
                    };
                    using (var process = Process.Start(info))
                    {
                        process.StandardInput.Close();
                        var error = process.StandardError.ReadToEndAsync();
                        var output = process.StandardOutput.ReadToEnd();
                        process.WaitForExit();
                        outcome.ExitCode = process.ExitCode;
                        outcome.Output = (output + error.Result).TrimEnd();
                    }
                }
                catch (Exception e) { outcome.Output = e.Message; }
                done(outcome);
            });
        }
    }
}
