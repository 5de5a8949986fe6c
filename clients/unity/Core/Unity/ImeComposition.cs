// The composer's keys while an input method composes text (Japanese, Chinese, Korean…): the IME
// owns the keys then — Enter confirms the conversion, Esc cancels it, the arrows and Tab move
// among the candidates — so none of them may send the message or move the slash popup. The
// Editor passes what is being composed (`Input.compositionString`; empty when nothing is), and
// ComposerKeys decides as usual when nothing is.
using Codiva.Panel;

namespace Codiva.Unity
{
    public static class ImeComposition
    {
        /// What `key` does given `composition` (the text the IME is composing now).
        public static ComposerAction Press(SlashCompletion slash, ComposerKey key, bool shift, string text, string composition, out string completed)
        {
            if (!string.IsNullOrEmpty(composition))
            {
                completed = null;
                return ComposerAction.None;
            }
            return ComposerKeys.Press(slash, key, shift, text, out completed);
        }
    }
}
