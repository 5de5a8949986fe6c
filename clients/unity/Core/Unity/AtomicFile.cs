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
        public static void WriteBytes(string path, byte[] bytes)
        {
            var dir = Path.GetDirectoryName(Path.GetFullPath(path));
            Directory.CreateDirectory(dir);
            var temp = path + "." + Guid.NewGuid().ToString("N").Substring(0, 8) + ".codiva~";
            try
            {
                using (var stream = new FileStream(temp, FileMode.CreateNew, FileAccess.Write))
                {
                    stream.Write(bytes, 0, bytes.Length);
                    stream.Flush(true);
                }
                if (File.Exists(path)) File.Replace(temp, path, null);
                else File.Move(temp, path);
            }
            finally
            {
                if (File.Exists(temp)) File.Delete(temp);
            }
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
