// An image from the clipboard. Unity's Editor has no API for an image on the clipboard
// (`EditorGUIUtility.systemCopyBuffer` is text), so the panel asks the desktop's own helper, as
// the Agent Panel does: `wl-paste` (Wayland) or `xclip` (X11) on Linux, `osascript` on macOS.
// Each runs in a process group of its own (`setsid` on Linux; on macOS `perl`'s setpgrp, perl
// being part of macOS), its output read up to the largest image the agent takes, killed whole
// past its time or past that size, and reaped. What it gives goes through ImageAttachments like a
// file (the type by its bytes, the agent's limits). Windows is not built (nor is the panel's
// transport there).
using System;
using System.Collections.Generic;
using System.ComponentModel;
using System.Diagnostics;
using System.IO;
using System.Text;
using System.Threading;
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
                byte[] output;
                int exit;
                var outcome = Run(command, mac, timeoutMs, limit, path, out output, out exit);
                if (outcome == ClipboardOutcome.TimedOut || outcome == ClipboardOutcome.TooLarge) return new ClipboardRead { Outcome = outcome };
                // 127: the wrapper could not start the helper (not installed); try the next.
                if (exit == 127 || exit == 126) continue;
                if (exit != 0 || output.Length == 0) return new ClipboardRead { Outcome = ClipboardOutcome.NoImage };
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

        // ProcessStartInfo's argument string is split by the Windows rules (on Mono too): double
        // quotes, a backslash escaping a quote.
        static string Quote(string arg) => "\"" + arg.Replace("\\", "\\\\").Replace("\"", "\\\"") + "\"";

        static ClipboardOutcome Run(ClipboardCommand command, bool mac, int timeoutMs, long limit, string path, out byte[] output, out int exit)
        {
            output = new byte[0];
            exit = -1;
            // The helper is exec'd in place by the wrapper: its pid is the new group's id.
            var args = new StringBuilder();
            string wrapper;
            if (mac)
            {
                wrapper = "/usr/bin/perl";
                args.Append("-e ").Append(Quote("setpgrp(0,0); exec @ARGV or exit 127")).Append(' ');
            }
            else wrapper = "setsid";
            args.Append(Quote(command.Program));
            foreach (var arg in command.Args) args.Append(' ').Append(Quote(arg));
            var info = new ProcessStartInfo(wrapper, args.ToString())
            {
                UseShellExecute = false,
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                RedirectStandardInput = true,
            };
            if (path != null) info.EnvironmentVariables["PATH"] = path;
            Process process;
            try { process = Process.Start(info); }
            catch (Win32Exception) { exit = 127; return ClipboardOutcome.NoHelper; }
            using (process)
            {
                process.StandardInput.Close();
                var buffer = new MemoryStream();
                var state = new ReadState();
                var reader = new Thread(() =>
                {
                    var chunk = new byte[64 * 1024];
                    var stream = process.StandardOutput.BaseStream;
                    int read;
                    try
                    {
                        while ((read = stream.Read(chunk, 0, chunk.Length)) > 0)
                        {
                            if (buffer.Length + read > limit) { state.Over = true; break; }
                            buffer.Write(chunk, 0, read);
                        }
                    }
                    catch (IOException) { }
                }) { IsBackground = true };
                reader.Start();
                // stderr is drained so a chatty helper never blocks on it.
                process.ErrorDataReceived += (_, __) => { };
                process.BeginErrorReadLine();
                var deadline = DateTime.UtcNow.AddMilliseconds(timeoutMs);
                var finished = false;
                while (!state.Over && !(finished = process.WaitForExit(50)))
                    if (DateTime.UtcNow > deadline) break;
                if (!finished)
                {
                    KillGroup(process.Id);
                    process.WaitForExit(timeoutMs);
                    reader.Join(timeoutMs);
                    return state.Over ? ClipboardOutcome.TooLarge : ClipboardOutcome.TimedOut;
                }
                // Exited: the rest of its output is read to its end.
                reader.Join(timeoutMs);
                if (state.Over) { KillGroup(process.Id); return ClipboardOutcome.TooLarge; }
                exit = process.ExitCode;
                output = buffer.ToArray();
                return ClipboardOutcome.Image;
            }
        }

        sealed class ReadState { public volatile bool Over; }

        static void KillGroup(int id)
        {
            try
            {
                using (var kill = Process.Start(new ProcessStartInfo("kill", "-KILL -- -" + id) { UseShellExecute = false, RedirectStandardError = true }))
                    kill.WaitForExit(5000);
            }
            catch (Win32Exception) { }
        }
    }
}
