// The composer's keys (Core/Unity/ComposerKeys.cs) over the real slash completion: the popup takes
// Up/Down/Tab/Enter/Esc while open, Enter sends otherwise and Shift+Enter does not.
using System.Collections.Generic;
using Codiva.Panel;
using Codiva.Protocol;
using Codiva.Unity;
using NUnit.Framework;

namespace Codiva.Tests
{
    [TestFixture]
    public class ComposerKeyTests
    {
        static SlashCompletion Slash() => new SlashCompletion(new List<CommandInfo>
        {
            new CommandInfo { Name = "compact" }, new CommandInfo { Name = "context" }, new CommandInfo { Name = "review" },
        });

        [Test]
        public void Unitys_key_codes_map_to_the_composers_keys()
        {
            Assert.AreEqual(ComposerKey.Up, ComposerKeys.FromUnityKeyCode(273));
            Assert.AreEqual(ComposerKey.Down, ComposerKeys.FromUnityKeyCode(274));
            Assert.AreEqual(ComposerKey.Tab, ComposerKeys.FromUnityKeyCode(9));
            Assert.AreEqual(ComposerKey.Enter, ComposerKeys.FromUnityKeyCode(13));
            Assert.AreEqual(ComposerKey.Enter, ComposerKeys.FromUnityKeyCode(271));
            Assert.AreEqual(ComposerKey.Escape, ComposerKeys.FromUnityKeyCode(27));
            Assert.AreEqual(ComposerKey.Other, ComposerKeys.FromUnityKeyCode(97));
        }

        [Test]
        public void The_open_popup_takes_the_arrows_completes_on_tab_or_enter_and_closes_on_escape()
        {
            string completed;
            var slash = Slash();
            slash.Update("/co");
            Assert.IsTrue(slash.Open);
            Assert.AreEqual(ComposerAction.Taken, ComposerKeys.Press(slash, ComposerKey.Down, false, "/co", out completed));
            Assert.IsNull(completed);
            Assert.AreEqual(ComposerAction.Taken, ComposerKeys.Press(slash, ComposerKey.Enter, false, "/co", out completed));
            Assert.AreEqual("/context ", completed, "Enter completes; it does not send");
            Assert.IsFalse(slash.Open);

            slash.Update("/co");
            Assert.AreEqual(ComposerAction.Taken, ComposerKeys.Press(slash, ComposerKey.Up, false, "/co", out completed));
            Assert.AreEqual(ComposerAction.Taken, ComposerKeys.Press(slash, ComposerKey.Tab, false, "/co", out completed));
            Assert.AreEqual("/context ", completed, "Up from the first wraps to the last");

            slash.Update("/re");
            Assert.AreEqual(ComposerAction.Taken, ComposerKeys.Press(slash, ComposerKey.Escape, false, "/re", out completed));
            Assert.IsFalse(slash.Open);
            Assert.AreEqual(ComposerAction.Send, ComposerKeys.Press(slash, ComposerKey.Enter, false, "/re", out completed), "closed: Enter sends");
        }

        [Test]
        public void Enter_sends_shift_enter_and_other_keys_do_not_and_nothing_sends_an_empty_message()
        {
            string completed;
            Assert.AreEqual(ComposerAction.Send, ComposerKeys.Press(Slash(), ComposerKey.Enter, false, "fix it", out completed));
            Assert.AreEqual(ComposerAction.None, ComposerKeys.Press(Slash(), ComposerKey.Enter, true, "fix it", out completed));
            Assert.AreEqual(ComposerAction.None, ComposerKeys.Press(Slash(), ComposerKey.Up, false, "fix it", out completed));
            Assert.AreEqual(ComposerAction.None, ComposerKeys.Press(Slash(), ComposerKey.Enter, false, "  \n", out completed));
            Assert.AreEqual(ComposerAction.None, ComposerKeys.Press(null, ComposerKey.Tab, false, "x", out completed));
        }
    }
}
