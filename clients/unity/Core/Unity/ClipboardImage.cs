// An image from the clipboard. Unity's Editor has no API for an image on the clipboard
// (`EditorGUIUtility.systemCopyBuffer` is text), so the panel asks the desktop's own helper, as
// the Agent Panel does: `wl-paste` (Wayland) or `xclip` (X11) on Linux, `osascript` on macOS.
// Each runs through ChildProcess: in a process group of its own, its output read up to the
// largest image the agent takes, killed whole past its time or past that size, and reaped. What
// it gives goes through ImageAttachments like a file (the type by its bytes, the agent's limits).
// Windows is not built (nor is the panel's transport there).
using System;
using System.Collections.Generic;
using System.Text;
using Codiva.Panel;

namespace Codiva.Unity
{
    public sealed class ClipboardCommand
    {
        public string Program;
        public string[] Args;
        /// macOS's osascript writes the PNG as `«data PNGf89504E…»`: hex to decode.
        public bool Hex;
    }

    public enum ClipboardOutcome { Image, NoHelper, NoImage, TooLarge, TimedOut }

    public sealed class ClipboardRead
    {
        public ClipboardOutcome Outcome;
        public byte[] Bytes;
        /// The helpers tried (for the words when none was found).
        public string Tried = "";

        /// Attaches the image to `images` as `clipboard.png`; returns the words of what went wrong
        /// (no image, or the attachment's refusal), "" when it was attached.
        public string AttachTo(ImageAttachments images, Language language)
        {
            if (Outcome != ClipboardOutcome.Image) return Words(language);
            return images.Add("clipboard.png", Bytes, language) == AttachmentRefusal.None ? "" : images.LastRefusal;
        }

        /// The words for an outcome that is not an image (plain); "" for an image.
        public string Words(Language language)
        {
            switch (Outcome)
            {
                case ClipboardOutcome.NoHelper: return Strings.Format(Str.ClipboardNoHelper, language, Tried);
                case ClipboardOutcome.NoImage: return Strings.Get(Str.ClipboardNoImage, language);
                case ClipboardOutcome.TooLarge: return Strings.Format(Str.ImageTooLarge, language, "clipboard", ImageAttachments.MaxBase64Bytes / (1024 * 1024));
                case ClipboardOutcome.TimedOut: return Strings.Get(Str.ClipboardTimedOut, language);
                default: return "";
            }
        }
    }

    public static class ClipboardImage
    {
        public const int TimeoutMs = 5000;

        /// The helpers to try, in order: on macOS osascript; elsewhere wl-paste when a Wayland
        /// display is set, xclip when an X display is (both when both are).
        public static List<ClipboardCommand> Commands(bool mac, Func<string, string> environment)
        {
            var commands = new List<ClipboardCommand>();
            if (mac)
            {
                commands.Add(new ClipboardCommand { Program = "osascript", Args = new[] { "-e", "the clipboard as «class PNGf»" }, Hex = true });
                return commands;
            }
            if (!string.IsNullOrEmpty(environment("WAYLAND_DISPLAY")))
                commands.Add(new ClipboardCommand { Program = "wl-paste", Args = new[] { "--no-newline", "--type", "image/png" } });
            if (!string.IsNullOrEmpty(environment("DISPLAY")))
                commands.Add(new ClipboardCommand { Program = "xclip", Args = new[] { "-selection", "clipboard", "-target", "image/png", "-out" } });
            return commands;
        }

        /// Reads the clipboard's image with the first helper there is. `path`: the helpers'
        /// PATH (null: the Editor's); `mac`: start them through perl's setpgrp, not setsid.
        public static ClipboardRead Read(IList<ClipboardCommand> commands, bool mac = false, int timeoutMs = TimeoutMs, long maxBytes = DroppedFiles.MaxFileBytes, string path = null)
        {
            var tried = new List<string>();
            foreach (var command in commands)
            {
                tried.Add(command.Program);
                var limit = command.Hex ? maxBytes * 2 + 64 : maxBytes;
                var argv = new List<string> { command.Program };
                argv.AddRange(command.Args);
                // stdout only (the image); stderr is drained, not kept.
                var run = ChildProcess.Run(new ChildCommand { Argv = argv, TimeoutMs = timeoutMs, MaxOutputBytes = limit, KeepErrors = false, Path = path, Os = mac ? ChildOs.Mac : ChildOs.Linux });
                if (run.End == ChildEnd.TimedOut) return new ClipboardRead { Outcome = ClipboardOutcome.TimedOut };
                if (run.End == ChildEnd.TooMuchOutput) return new ClipboardRead { Outcome = ClipboardOutcome.TooLarge };
                // Not on PATH, not startable, or (126, 127) not executable by the wrapper: the next is tried.
                if (run.End != ChildEnd.Exited || run.ExitCode == 127 || run.ExitCode == 126) continue;
                var output = run.Output;
                if (run.ExitCode != 0 || output.Length == 0) return new ClipboardRead { Outcome = ClipboardOutcome.NoImage };
                var bytes = command.Hex ? FromAppleScriptData(output) : output;
                if (bytes == null || bytes.Length == 0) return new ClipboardRead { Outcome = ClipboardOutcome.NoImage };
                if (bytes.Length > maxBytes) return new ClipboardRead { Outcome = ClipboardOutcome.TooLarge };
                return new ClipboardRead { Outcome = ClipboardOutcome.Image, Bytes = bytes };
            }
            return new ClipboardRead { Outcome = ClipboardOutcome.NoHelper, Tried = string.Join(", ", tried) };
        }

        /// The image on this desktop's clipboard (its helpers, the Editor's environment); blocks
        /// up to the helper's time: call it off the Editor's thread.
        public static ClipboardRead ReadNow(bool mac) => Read(Commands(mac, Environment.GetEnvironmentVariable), mac);

        /// `«data PNGf89504E…»` (osascript's answer) as bytes; null when it is not that.
        public static byte[] FromAppleScriptData(byte[] output)
        {
            var text = Encoding.UTF8.GetString(output).Trim();
            const string prefix = "«data PNGf";
            if (!text.StartsWith(prefix, StringComparison.Ordinal) || !text.EndsWith("»", StringComparison.Ordinal)) return null;
            var hex = text.Substring(prefix.Length, text.Length - prefix.Length - 1);
            if (hex.Length % 2 != 0) return null;
            var bytes = new byte[hex.Length / 2];
            for (var i = 0; i < bytes.Length; i++)
            {
                int high = HexDigit(hex[2 * i]), low = HexDigit(hex[2 * i + 1]);
                if (high < 0 || low < 0) return null;
                bytes[i] = (byte)(high << 4 | low);
            }
            return bytes;
        }

        static int HexDigit(char c) => c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    }
}
