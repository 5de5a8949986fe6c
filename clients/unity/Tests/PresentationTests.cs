using System.Collections.Generic;
using System.Text;
using Codiva.Client;
using Codiva.Protocol;
using NUnit.Framework;

namespace Codiva.Tests
{
    [TestFixture]
    public class PresentationTests
    {
        [Test]
        public void Model_text_loses_control_sequences_before_a_label()
        {
            Assert.AreEqual("[2Jred text\nnext", Presentation.Clip("\u001b[2Jred\u0007 text\nnext\u009b"));
        }

        [Test]
        public void Context_is_one_delimited_block_with_each_chip_capped_at_2_KB()
        {
            var text = ContextBlock.Attach("fix it", new List<ContextChip>
            {
                new ContextChip { Kind = "selection", Label = "Player", Detail = "Transform, Rigidbody" },
                new ContextChip { Kind = "console", Label = "3 errors", Detail = new string('é', 3000) },
            });
            StringAssert.StartsWith("fix it\n\n" + ContextBlock.Header + "\n[selection] Player\nTransform, Rigidbody\n[console] 3 errors\n", text);
            StringAssert.EndsWith("…\n" + ContextBlock.Footer, text);
            var console = text.Substring(text.IndexOf("[console] 3 errors\n") + "[console] 3 errors\n".Length);
            console = console.Substring(0, console.IndexOf('\n'));
            Assert.LessOrEqual(Encoding.UTF8.GetByteCount(console), ContextBlock.MaxChipBytes);
            Assert.AreEqual("fix it", ContextBlock.Attach("fix it", new List<ContextChip>()));
        }
    }
}
