// Thumbnails of the images the panel's own Ops tools return (a screenshot, …), next to the tool
// card of the call that returned them. codiva's protocol carries a tool's result as text only (an
// image block of a result — a Read of a PNG, another MCP server's image — is not in the session's
// log), but the Ops server sees its own results, and Claude Code names the call in each MCP
// `tools/call` (`params._meta["claudecode/toolUseId"]`, the tool-use id codiva's log entry has:
// measured in OpsImagesThroughCodivaTests). So the server hands each result with its call's id
// here; its image blocks — at most `MaxPerResult` per result, each at most `MaxBase64Chars` of
// base64, and only PNG, JPEG, GIF or WebP by their bytes — are decoded into the cache folder as
// `<tool-use id>-<n>.<ext>` (written atomically), kept `Retention` and then pruned. The folder
// outlives domain reloads (the Editor's is `Library/Codiva/ToolImages`); the card finds its
// images by the call's id.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.RegularExpressions;
using Codiva.Json;
using Codiva.Panel;
using Codiva.Unity;

namespace Codiva.Ops
{
    /// One kept image: its file and size, and the size its thumbnail is drawn at.
    public sealed class ToolImage
    {
        public string Path;
        public string MediaType;
        public int Width, Height;
        public int ThumbWidth, ThumbHeight;
    }

    public sealed class ToolImageCache
    {
        public const int MaxPerResult = 4;
        public const int MaxBase64Chars = 8 * 1024 * 1024;
        /// A thumbnail's longer side at most (never larger than the image).
        public const int ThumbSide = 256;
        public static readonly TimeSpan Retention = TimeSpan.FromDays(7);

        // Tool-use ids as Claude Code writes them (`toolu_01…`); anything else is not a file name.
        static readonly Regex SafeId = new Regex("^[A-Za-z0-9_-]{1,128}\\z");
        static readonly Regex FileName = new Regex("^(?<id>[A-Za-z0-9_-]{1,128})-(?<n>[0-9])\\.(png|jpg|gif|webp)\\z");

        readonly string folder;
        // What Of found, by id (a card asks at each redraw): forgotten for an id when its images
        // are written, wholly by Prune. Record runs on the server's threads, Of on the Editor's.
        readonly Dictionary<string, List<ToolImage>> found = new Dictionary<string, List<ToolImage>>();

        public ToolImageCache(string folder) { this.folder = folder; }

        public string Folder => folder;

        /// The thumbnail's size: the image scaled down (never up) to fit `side` × `side`, at
        /// least 1 × 1.
        public static void Fit(int width, int height, int side, out int thumbWidth, out int thumbHeight)
        {
            if (width <= 0 || height <= 0) { thumbWidth = thumbHeight = 0; return; }
            var scale = Math.Min(1.0, (double)side / Math.Max(width, height));
            thumbWidth = Math.Max(1, (int)Math.Round(width * scale));
            thumbHeight = Math.Max(1, (int)Math.Round(height * scale));
        }

        /// Why the last result's images could not be written (English, for the log); null.
        public string Problem { get; private set; }

        /// The Ops server's `Called`: keeps the result's images; a disk error is kept in
        /// `Problem`, never thrown into the tool's answer.
        public void Keep(string toolUseId, ToolResult result)
        {
            try { Record(toolUseId, result?.Content); }
            catch (Exception e) when (e is IOException || e is UnauthorizedAccessException)
            {
                Problem = "could not keep the images of " + toolUseId + ": " + e.Message;
            }
        }

        /// Keeps the image blocks of `content` (MCP content: `{type:"image", mimeType, data}`) of
        /// the call `toolUseId`; returns how many were kept (0 without an id fit for a file name).
        public int Record(string toolUseId, IEnumerable<object> content)
        {
            if (toolUseId == null || !SafeId.IsMatch(toolUseId) || content == null) return 0;
            var kept = 0;
            foreach (var block in content)
            {
                if (kept == MaxPerResult) break;
                if (JsonRead.Str(block, "type") != "image") continue;
                var data = JsonRead.Str(block, "data");
                if (data == null || data.Length > MaxBase64Chars) continue;
                byte[] bytes;
                try { bytes = Convert.FromBase64String(data); }
                catch (FormatException) { continue; }
                var type = ImageAttachments.Sniff(bytes);
                if (type == null) continue;
                AtomicFile.WriteBytes(System.IO.Path.Combine(folder, toolUseId + "-" + kept + Extension(type)), bytes);
                kept++;
            }
            if (kept > 0) lock (found) found.Remove(toolUseId);
            return kept;
        }

        static string Extension(string mediaType)
        {
            switch (mediaType)
            {
                case "image/png": return ".png";
                case "image/jpeg": return ".jpg";
                case "image/gif": return ".gif";
                default: return ".webp";
            }
        }

        /// The images kept for the call `toolUseId`, in the result's order.
        public List<ToolImage> Of(string toolUseId)
        {
            if (toolUseId == null || !SafeId.IsMatch(toolUseId)) return new List<ToolImage>();
            List<ToolImage> known;
            lock (found) if (found.TryGetValue(toolUseId, out known)) return new List<ToolImage>(known);
            var images = Read(toolUseId);
            lock (found) found[toolUseId] = images;
            return new List<ToolImage>(images);
        }

        List<ToolImage> Read(string toolUseId)
        {
            var images = new List<ToolImage>();
            if (!Directory.Exists(folder)) return images;
            foreach (var path in Directory.GetFiles(folder, toolUseId + "-*").OrderBy(p => p, StringComparer.Ordinal))
            {
                var match = FileName.Match(System.IO.Path.GetFileName(path));
                if (!match.Success || match.Groups["id"].Value != toolUseId) continue;
                byte[] bytes;
                try { bytes = File.ReadAllBytes(path); }
                catch (IOException) { continue; }
                int width, height;
                if (!ImageAttachments.Dimensions(bytes, out width, out height)) continue;
                int thumbWidth, thumbHeight;
                Fit(width, height, ThumbSide, out thumbWidth, out thumbHeight);
                images.Add(new ToolImage { Path = path, MediaType = ImageAttachments.Sniff(bytes), Width = width, Height = height, ThumbWidth = thumbWidth, ThumbHeight = thumbHeight });
            }
            return images;
        }

        /// Deletes the images older than `Retention` at `nowUtc` (by when they were written) and
        /// other files of the folder older than an hour; returns how many went.
        public int Prune(DateTime nowUtc)
        {
            lock (found) found.Clear();
            if (!Directory.Exists(folder)) return 0;
            var removed = 0;
            foreach (var path in Directory.GetFiles(folder))
            {
                // An image past its retention; anything else (a temporary file a crash left) once
                // it is an hour old (a younger one may be being written now).
                var written = File.GetLastWriteTimeUtc(path);
                var stale = FileName.IsMatch(System.IO.Path.GetFileName(path)) ? written < nowUtc - Retention : written < nowUtc - TimeSpan.FromHours(1);
                if (!stale) continue;
                try { File.Delete(path); removed++; }
                catch (IOException) { }
                catch (UnauthorizedAccessException) { }
            }
            return removed;
        }
    }
}
