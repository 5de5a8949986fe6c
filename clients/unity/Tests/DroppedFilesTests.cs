// Files dropped on the panel (Codiva.Unity.DroppedFiles): images attached by their bytes within
// the agent's limits, from absolute paths and from the Project window's `Assets/…` paths; a
// folder, a file that is no image, one too large (not read) refused with their words.
using System;
using System.IO;
using System.Linq;
using Codiva.Panel;
using Codiva.Unity;
using NUnit.Framework;

namespace Codiva.Tests
{
    [TestFixture]
    public class DroppedFilesTests
    {
        /// A 1×1 PNG.
        const string Pixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";

        [Test]
        public void Dropped_images_are_attached_and_other_files_refused_with_their_words()
        {
            using (var dir = new TempDir("codiva-drop-"))
            {
                var project = Path.Combine(dir.Path, "Game");
                Directory.CreateDirectory(Path.Combine(project, "Assets", "Art"));
                File.WriteAllBytes(Path.Combine(project, "Assets", "Art", "dot.png"), Convert.FromBase64String(Pixel));
                var outside = Path.Combine(dir.Path, "shot.png");
                File.WriteAllBytes(outside, Convert.FromBase64String(Pixel));
                // Named .png, but not one by its bytes.
                File.WriteAllText(Path.Combine(dir.Path, "notes.png"), "hello");
                var huge = Path.Combine(dir.Path, "huge.png");
                using (var stream = File.Create(huge)) stream.SetLength(DroppedFiles.MaxFileBytes + 1);

                var images = new ImageAttachments();
                var refusals = DroppedFiles.Attach(new[] { "Assets/Art/dot.png", outside, Path.Combine(dir.Path, "notes.png"), huge, Path.Combine(project, "Assets"), "" }, project, images, Language.En);
                Assert.AreEqual(new[] { "dot.png", "shot.png" }, images.Items.Select(i => i.Name).ToArray());
                Assert.AreEqual("image/png", images.Items[0].MediaType);
                Assert.AreEqual(3, refusals.Count);
                StringAssert.Contains("notes.png", refusals[0]);
                StringAssert.Contains("huge.png", refusals[1]);
                StringAssert.Contains("5", refusals[1]);
                StringAssert.Contains("Assets", refusals[2]);
                // In Japanese too.
                Assert.IsTrue(DroppedFiles.Attach(new[] { huge }, project, new ImageAttachments(), Language.Ja).Single().Contains("huge.png"));
            }
        }
    }
}
