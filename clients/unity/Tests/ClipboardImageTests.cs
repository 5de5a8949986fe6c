// An image from the clipboard (Codiva.Unity.ClipboardImage), with stand-in helpers on the PATH
// (shell scripts named wl-paste, xclip, osascript's output decoded): which helper for which
// desktop, the image read, none found, no image, too large and too slow — the last two killed
// with their process group (a child of the helper too) and reaped.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using System.Threading;
using Codiva.Panel;
using Codiva.Unity;
using NUnit.Framework;

namespace Codiva.Tests
{
    [TestFixture]
    public class ClipboardImageTests
    {
        /// A 1×1 PNG.
        const string Pixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";

        TempDir dir;
        string bin;

        [SetUp]
        public void Start()
        {
            dir = new TempDir("codiva-clipboard-");
            bin = Path.Combine(dir.Path, "bin");
            Directory.CreateDirectory(bin);
        }

        [TearDown]
        public void End() => dir.Dispose();

        void Helper(string name, string body)
        {
            var path = Path.Combine(bin, name);
            File.WriteAllText(path, "#!/bin/sh\n" + body + "\n");
            Run.Program("chmod", "+x " + path, dir.Path);
        }

        /// Only the stand-ins and the system's tools (sh, sleep, base64, head).
        string PathWith => bin + ":/usr/bin:/bin";

        static Func<string, string> Env(params string[] pairs)
        {
            var map = new Dictionary<string, string>();
            for (var i = 0; i < pairs.Length; i += 2) map[pairs[i]] = pairs[i + 1];
            return name => map.TryGetValue(name, out var value) ? value : null;
        }

        [Test]
        public void Each_desktop_has_its_helper()
        {
            Assert.AreEqual(new[] { "wl-paste", "xclip" }, ClipboardImage.Commands(false, Env("WAYLAND_DISPLAY", "wayland-0", "DISPLAY", ":0")).Select(c => c.Program).ToArray());
            Assert.AreEqual(new[] { "xclip" }, ClipboardImage.Commands(false, Env("DISPLAY", ":0")).Select(c => c.Program).ToArray());
            Assert.AreEqual(0, ClipboardImage.Commands(false, Env()).Count);
            var mac = ClipboardImage.Commands(true, Env()).Single();
            Assert.AreEqual("osascript", mac.Program);
            Assert.IsTrue(mac.Hex);
            CollectionAssert.AreEqual(Convert.FromBase64String(Pixel),
                ClipboardImage.FromAppleScriptData(Encoding.UTF8.GetBytes("«data PNGf" + BitConverter.ToString(Convert.FromBase64String(Pixel)).Replace("-", "") + "»\n")));
            Assert.IsNull(ClipboardImage.FromAppleScriptData(Encoding.UTF8.GetBytes("«data TIFF0011»")));
            Assert.IsNull(ClipboardImage.FromAppleScriptData(Encoding.UTF8.GetBytes("«data PNGf0G»")));
        }

        [Test]
        public void The_image_comes_from_the_first_helper_there_is_and_is_attached_like_a_file()
        {
            // No wl-paste here: xclip, the next, answers.
            Helper("xclip", "echo " + Pixel + " | base64 -d");
            var commands = ClipboardImage.Commands(false, Env("WAYLAND_DISPLAY", "wayland-0", "DISPLAY", ":0"));
            var read = ClipboardImage.Read(commands, path: PathWith);
            Assert.AreEqual(ClipboardOutcome.Image, read.Outcome);
            CollectionAssert.AreEqual(Convert.FromBase64String(Pixel), read.Bytes);
            var images = new ImageAttachments();
            Assert.AreEqual("", read.AttachTo(images, Language.En));
            Assert.AreEqual("clipboard.png", images.Items.Single().Name);
            // Bytes that are no image are refused as a file's would be.
            Helper("xclip", "echo hello");
            var text = ClipboardImage.Read(commands, path: PathWith);
            StringAssert.Contains("clipboard.png", text.AttachTo(images, Language.En));
            Assert.AreEqual(1, images.Items.Count);
        }

        [Test]
        public void No_helper_or_no_image_is_said_in_words()
        {
            var commands = ClipboardImage.Commands(false, Env("WAYLAND_DISPLAY", "wayland-0", "DISPLAY", ":0"));
            var none = ClipboardImage.Read(commands, path: PathWith);
            Assert.AreEqual(ClipboardOutcome.NoHelper, none.Outcome);
            Assert.AreEqual("No clipboard helper was found (looked for: wl-paste, xclip)", none.AttachTo(new ImageAttachments(), Language.En));
            Assert.AreEqual("クリップボードの補助プログラムが見つかりません(探したもの: wl-paste, xclip)", none.Words(Language.Ja));
            // wl-paste answers that there is no image (it exits 1).
            Helper("wl-paste", "echo 'Clipboard content is not available as requested type' >&2; exit 1");
            var empty = ClipboardImage.Read(commands, path: PathWith);
            Assert.AreEqual(ClipboardOutcome.NoImage, empty.Outcome);
            Assert.AreEqual("The clipboard holds no image", empty.Words(Language.En));
        }

        [Test]
        public void A_helper_too_slow_or_too_talkative_is_killed_with_its_group()
        {
            var pid = Path.Combine(dir.Path, "child.pid");
            Helper("xclip", "sleep 60 & echo $! > " + pid + "; wait");
            var slow = ClipboardImage.Read(ClipboardImage.Commands(false, Env("DISPLAY", ":0")), timeoutMs: 300, path: PathWith);
            Assert.AreEqual(ClipboardOutcome.TimedOut, slow.Outcome);
            Assert.AreEqual("Reading the clipboard took too long", slow.Words(Language.En));
            Assert.IsTrue(ChildProcessTests.Gone(pid), "the helper's child was killed with it");

            File.Delete(pid);
            Helper("xclip", "sleep 60 & echo $! > " + pid + "; head -c 200000 /dev/zero; wait");
            var big = ClipboardImage.Read(ClipboardImage.Commands(false, Env("DISPLAY", ":0")), maxBytes: 100000, path: PathWith);
            Assert.AreEqual(ClipboardOutcome.TooLarge, big.Outcome);
            StringAssert.Contains("clipboard", big.Words(Language.En));
            Assert.IsTrue(ChildProcessTests.Gone(pid), "the helper's child was killed with it");
        }
    }
}
