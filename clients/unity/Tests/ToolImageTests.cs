// Thumbnails of the Ops tools' images (Codiva.Ops.ToolImageCache): kept by the call's tool-use id
// within the limits (per result, per image, image bytes only), found again by a new cache over the
// same folder (a domain reload), sized to fit, pruned after their retention.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Codiva.Ops;
using NUnit.Framework;

namespace Codiva.Tests
{
    [TestFixture]
    public class ToolImageTests
    {
        /// A PNG header of `width` × `height` (enough for its size to be read).
        internal static byte[] Png(int width, int height)
        {
            var b = new byte[33];
            new byte[] { 0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, (byte)'I', (byte)'H', (byte)'D', (byte)'R' }.CopyTo(b, 0);
            b[16] = (byte)(width >> 24); b[17] = (byte)(width >> 16); b[18] = (byte)(width >> 8); b[19] = (byte)width;
            b[20] = (byte)(height >> 24); b[21] = (byte)(height >> 16); b[22] = (byte)(height >> 8); b[23] = (byte)height;
            return b;
        }

        static Dictionary<string, object> Image(byte[] bytes, string mime = "image/png") =>
            new Dictionary<string, object> { { "type", "image" }, { "mimeType", mime }, { "data", Convert.ToBase64String(bytes) } };

        static Dictionary<string, object> Text(string text) => new Dictionary<string, object> { { "type", "text" }, { "text", text } };

        TempDir dir;
        string folder;

        [SetUp]
        public void Start()
        {
            dir = new TempDir("codiva-toolimages-");
            folder = Path.Combine(dir.Path, "Library", "Codiva", "ToolImages");
        }

        [TearDown]
        public void End() => dir.Dispose();

        [Test]
        public void A_results_images_are_kept_by_its_call_within_the_limits()
        {
            var cache = new ToolImageCache(folder);
            var content = new List<object>
            {
                Text("a screenshot"),
                Image(Png(1024, 512)),
                Image(new byte[] { 1, 2, 3, 4 }),                              // not an image by its bytes
                new Dictionary<string, object> { { "type", "image" }, { "data", "not base64!" } },
                new Dictionary<string, object> { { "type", "image" }, { "data", new string('A', ToolImageCache.MaxBase64Chars + 4) } },
                Image(Png(10, 20)),
                Image(Png(300, 300)),
                Image(Png(3, 3)),
                Image(Png(4, 4)),                                              // the fifth image: past the limit
            };
            Assert.AreEqual(0, cache.Of("toolu_01ABC").Count, "none yet (and that answer is not kept past the next record)");
            Assert.AreEqual(ToolImageCache.MaxPerResult, cache.Record("toolu_01ABC", content));
            var images = cache.Of("toolu_01ABC");
            Assert.AreEqual(new[] { 1024, 10, 300, 3 }, images.Select(i => i.Width).ToArray());
            Assert.AreEqual(new[] { "256×128", "10×20", "256×256", "3×3" }, images.Select(i => i.ThumbWidth + "×" + i.ThumbHeight).ToArray());
            Assert.IsTrue(images.All(i => i.MediaType == "image/png" && i.Path.StartsWith(folder) && i.Path.EndsWith(".png")));
            // Another call's images are its own; a call without images has none.
            cache.Record("toolu_01ABCD", new List<object> { Image(Png(5, 5)) });
            Assert.AreEqual(4, cache.Of("toolu_01ABC").Count);
            Assert.AreEqual(1, cache.Of("toolu_01ABCD").Count);
            Assert.AreEqual(0, cache.Of("toolu_other").Count);
            // A new cache over the folder (after a domain reload) finds them.
            Assert.AreEqual(4, new ToolImageCache(folder).Of("toolu_01ABC").Count);
        }

        [Test]
        public void An_id_that_is_no_file_name_keeps_nothing()
        {
            var cache = new ToolImageCache(folder);
            foreach (var id in new[] { null, "", "../escape", "a/b", "toolu_1\n", new string('x', 129) })
            {
                Assert.AreEqual(0, cache.Record(id, new List<object> { Image(Png(1, 1)) }), id ?? "null");
                Assert.AreEqual(0, cache.Of(id).Count);
            }
            Assert.IsFalse(Directory.Exists(folder) && Directory.GetFiles(folder).Length > 0);
            Assert.IsFalse(File.Exists(Path.Combine(dir.Path, "Library", "Codiva", "escape-0.png")));
            // Through the server's hook: no id, nothing kept, nothing thrown.
            cache.Keep(null, new ToolResult().AddImage("image/png", Png(1, 1)));
            Assert.IsNull(cache.Problem);
        }

        [Test]
        public void Images_go_after_their_retention_and_leftover_files_after_an_hour()
        {
            var cache = new ToolImageCache(folder);
            cache.Keep("toolu_old", new ToolResult().AddImage("image/png", Png(2, 2)));
            cache.Keep("toolu_new", new ToolResult().AddImage("image/png", Png(2, 2)));
            var now = DateTime.UtcNow;
            File.SetLastWriteTimeUtc(cache.Of("toolu_old")[0].Path, now - ToolImageCache.Retention - TimeSpan.FromMinutes(1));
            File.SetLastWriteTimeUtc(cache.Of("toolu_new")[0].Path, now - ToolImageCache.Retention + TimeSpan.FromMinutes(1));
            var leftover = Path.Combine(folder, "toolu_x-0.png.1234abcd.codiva~");
            var young = Path.Combine(folder, "toolu_y-0.png.5678abcd.codiva~");
            File.WriteAllText(leftover, "");
            File.WriteAllText(young, "");
            File.SetLastWriteTimeUtc(leftover, now - TimeSpan.FromHours(2));
            Assert.AreEqual(2, cache.Prune(now));
            Assert.AreEqual(0, cache.Of("toolu_old").Count);
            Assert.AreEqual(1, cache.Of("toolu_new").Count);
            Assert.IsTrue(File.Exists(young), "a file being written now stays");
        }
    }
}
