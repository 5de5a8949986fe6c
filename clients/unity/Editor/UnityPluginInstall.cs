// The Editor's side of the Unity official plugin (Core/Unity/UnityPlugin.cs) and of the installs'
// commands: the disk as IFileReader, and Core's ProcessGroupRunner as ICommandRunner for the
// Editor's system. The settings foldout runs the install only when the user clicks its button
// and shows what the commands printed.
using System;
using System.IO;
using Codiva.Unity;
using UnityEngine;

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

    /// The installs' commands: each in a process group of its own, with a deadline and an
    /// output cap (Core's ProcessGroupRunner); on Windows none is run (ChildProcess says why).
    public static class EditorCommands
    {
        public static ChildOs Os =>
            Application.platform == RuntimePlatform.OSXEditor ? ChildOs.Mac
            : Application.platform == RuntimePlatform.WindowsEditor ? ChildOs.Windows
            : ChildOs.Linux;

        public static ICommandRunner Runner() => new ProcessGroupRunner(Os);
    }
}
