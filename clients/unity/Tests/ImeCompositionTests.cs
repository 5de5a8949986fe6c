// The IME guard of the composer (Codiva.Unity.ImeComposition): while text is being composed no
// key sends or moves the slash popup; once it is confirmed, Enter sends as before.
using System.Collections.Generic;
using Codiva.Panel;
using Codiva.Protocol;
using Codiva.Unity;
using NUnit.Framework;

namespace Codiva.Tests
{
    [TestFixture]
    public class ImeCompositionTests
    {
        [Test]
        public void Enter_confirms_the_composition_and_sends_only_once_it_is_confirmed()
        {
            string completed;
            var slash = new SlashCompletion(new List<CommandInfo>());
            // Typing にほんご: the IME composes; Enter confirms it (the text field's), nothing is sent.
            Assert.AreEqual(ComposerAction.None, ImeComposition.Press(slash, ComposerKey.Enter, false, "こんにちは", "にほんご", out completed));
            Assert.IsNull(completed);
            // Confirmed: the next Enter sends.
            Assert.AreEqual(ComposerAction.Send, ImeComposition.Press(slash, ComposerKey.Enter, false, "こんにちは日本語", "", out completed));
            Assert.AreEqual(ComposerAction.Send, ImeComposition.Press(slash, ComposerKey.Enter, false, "hello", null, out completed));
        }

        [Test]
        public void The_slash_popup_leaves_the_keys_to_the_IME_while_it_composes()
        {
            string completed;
            var slash = new SlashCompletion(new List<CommandInfo> { new CommandInfo { Name = "compact" }, new CommandInfo { Name = "clear" } });
            slash.Update("/c");
            Assert.IsTrue(slash.Open);
            var selected = slash.Selected;
            foreach (var key in new[] { ComposerKey.Down, ComposerKey.Up, ComposerKey.Tab, ComposerKey.Enter, ComposerKey.Escape })
            {
                Assert.AreEqual(ComposerAction.None, ImeComposition.Press(slash, key, false, "/c", "か", out completed), key.ToString());
                Assert.IsNull(completed);
            }
            Assert.IsTrue(slash.Open, "Esc cancelled the composition, not the popup");
            Assert.AreEqual(selected, slash.Selected);
            // Nothing composed: the popup's keys again.
            Assert.AreEqual(ComposerAction.Taken, ImeComposition.Press(slash, ComposerKey.Down, false, "/c", "", out completed));
            Assert.AreEqual(ComposerAction.Taken, ImeComposition.Press(slash, ComposerKey.Enter, false, "/c", "", out completed));
            StringAssert.StartsWith("/c", completed);
        }
    }
}
