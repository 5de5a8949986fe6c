// Files dropped on the panel (from the OS's file manager: absolute paths; from Unity's Project
// window: `Assets/…` paths relative to the project): the images among them are attached as the
// file picker's are (ImageAttachments: type by the bytes, the agent's limits), each other one is
// refused with its words. A file larger than the largest image the agent takes is refused
// without being read.
using System.Collections.Generic;
using System.IO;
using Codiva.Panel;

namespace Codiva.Unity
{
    public static class DroppedFiles
    {
        /// The largest file read: one whose base64 fits ImageAttachments.MaxBase64Bytes.
        public const long MaxFileBytes = ImageAttachments.MaxBase64Bytes / 4 * 3;

        /// Attaches the images of `paths` to `images`; returns the words of each refusal (plain).
        public static List<string> Attach(IEnumerable<string> paths, string projectDir, ImageAttachments images, Language language)
        {
            var refusals = new List<string>();
            if (paths == null) return refusals;
            foreach (var path in paths)
            {
                if (string.IsNullOrEmpty(path)) continue;
                var full = Path.IsPathRooted(path) ? path : Path.Combine(projectDir, path);
                var name = Path.GetFileName(full.TrimEnd('/', '\\'));
                if (!File.Exists(full))
                {
                    refusals.Add(Strings.Format(Str.ImageUnsupportedType, language, name));
                    continue;
                }
                if (new FileInfo(full).Length > MaxFileBytes)
                {
                    refusals.Add(Strings.Format(Str.ImageTooLarge, language, name, ImageAttachments.MaxBase64Bytes / (1024 * 1024)));
                    continue;
                }
                byte[] bytes;
                try { bytes = File.ReadAllBytes(full); }
                catch (IOException e) { refusals.Add(name + ": " + e.Message); continue; }
                catch (System.UnauthorizedAccessException e) { refusals.Add(name + ": " + e.Message); continue; }
                if (images.Add(name, bytes, language) != AttachmentRefusal.None) refusals.Add(images.LastRefusal);
            }
            return refusals;
        }
    }
}
