// A small state file written whole or not at all: the text goes to a temporary file next to it,
// is flushed to the disk, and is renamed over the file (rename replaces in one step on the same
// file system), so a reader — the Editor after a domain reload, or after a crash mid-write —
// finds the old contents or the new, never half of them. Leftover temporary files (`*.codiva~`)
// are never read.
using System;
using System.IO;
using System.Text;

namespace Codiva.Unity
{
    public static class AtomicFile
    {
        /// Writes `text` (UTF-8) as the whole of `path`, creating its folder.
        public static void Write(string path, string text) => WriteBytes(path, new UTF8Encoding(false).GetBytes(text));

        /// Writes `bytes` as the whole of `path`, creating its folder.
        public static void WriteBytes(string path, byte[] bytes) => Put(path, bytes, false, true);

        /// Writes `text` as the whole of `path`, readable and writable by its owner alone (0600 on
        /// Unix and macOS, set before anything is written; its folder, when made here, 0700).
        public static void WriteOwnerOnly(string path, string text) => Put(path, new UTF8Encoding(false).GetBytes(text), true, true);

        /// Like WriteOwnerOnly, but only when `path` does not exist: false (and nothing written)
        /// when it does (`File.Move` refuses an existing target, so the first writer's file stays).
        public static bool CreateOwnerOnly(string path, string text) => Put(path, new UTF8Encoding(false).GetBytes(text), true, false);

        static bool Put(string path, byte[] bytes, bool ownerOnly, bool replace)
        {
            var dir = Path.GetDirectoryName(Path.GetFullPath(path));
            if (ownerOnly && !Directory.Exists(dir)) { Directory.CreateDirectory(dir); OwnerOnly(dir, "700"); }
            Directory.CreateDirectory(dir);
            if (!replace && File.Exists(path)) return false;
            var temp = path + "." + Guid.NewGuid().ToString("N").Substring(0, 8) + ".codiva~";
            try
            {
                using (var stream = new FileStream(temp, FileMode.CreateNew, FileAccess.Write))
                {
                    if (ownerOnly) OwnerOnly(temp, "600");
                    stream.Write(bytes, 0, bytes.Length);
                    stream.Flush(true);
                }
                if (!replace)
                {
                    try { File.Move(temp, path); }
                    catch (IOException) when (File.Exists(path)) { return false; }
                }
                else if (File.Exists(path)) File.Replace(temp, path, null);
                else File.Move(temp, path);
                return true;
            }
            finally
            {
                if (File.Exists(temp)) File.Delete(temp);
            }
        }

        [System.Runtime.InteropServices.DllImport("libc", SetLastError = true)]
        static extern int chmod(string path, int mode);

        // Where the OS has Unix modes; elsewhere (Windows) the user's profile folder is the user's.
        static void OwnerOnly(string path, string mode)
        {
            if (Environment.OSVersion.Platform != PlatformID.Unix && Environment.OSVersion.Platform != PlatformID.MacOSX) return;
            if (chmod(path, Convert.ToInt32(mode, 8)) != 0)
                throw new IOException("chmod " + mode + " " + path + " failed (errno " + System.Runtime.InteropServices.Marshal.GetLastWin32Error() + ")");
        }

        /// The file's text, or null when there is none.
        public static string Read(string path) => File.Exists(path) ? File.ReadAllText(path, Encoding.UTF8) : null;

        /// Moves an unreadable file aside (`<path>.unreadable`, replacing an older one) so that it
        /// is not read again and can still be looked at.
        public static void SetAside(string path)
        {
            var aside = path + ".unreadable";
            if (File.Exists(aside)) File.Delete(aside);
            if (File.Exists(path)) File.Move(path, aside);
        }
    }
}
