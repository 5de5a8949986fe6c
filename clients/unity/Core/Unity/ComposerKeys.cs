// The composer's keys: while the slash-command popup is open, Up/Down move in it, Tab or Enter
// completes the command and Esc closes it; otherwise Enter sends and Shift+Enter is a new line.
// The Editor gives Unity's key code as a number (`KeyCode`'s values, below) and does what the
// answer says, so which key does what is decided and tested here.
using Codiva.Panel;

namespace Codiva.Unity
{
    public enum ComposerKey { Other, Up, Down, Tab, Enter, Escape }

    public enum ComposerAction
    {
        /// Not the composer's: the text field takes the key as usual.
        None,
        /// Taken (the popup moved, completed or closed): the key goes no further.
        Taken,
        /// Send the message (the key goes no further).
        Send,
    }

    public static class ComposerKeys
    {
        /// Unity's `KeyCode` values (https://docs.unity3d.com/2022.3/Documentation/ScriptReference/KeyCode.html).
        public static ComposerKey FromUnityKeyCode(int keyCode)
        {
            switch (keyCode)
            {
                case 273: return ComposerKey.Up;       // UpArrow
                case 274: return ComposerKey.Down;     // DownArrow
                case 9: return ComposerKey.Tab;        // Tab
                case 13: case 271: return ComposerKey.Enter; // Return, KeypadEnter
                case 27: return ComposerKey.Escape;    // Escape
                default: return ComposerKey.Other;
            }
        }

        /// What `key` does to the composer holding `text`; `completed` is the composer's new text
        /// when the popup completed a command (null otherwise).
        public static ComposerAction Press(SlashCompletion slash, ComposerKey key, bool shift, string text, out string completed)
        {
            completed = null;
            if (slash != null && slash.Open)
            {
                switch (key)
                {
                    case ComposerKey.Up: slash.Move(-1); return ComposerAction.Taken;
                    case ComposerKey.Down: slash.Move(1); return ComposerAction.Taken;
                    case ComposerKey.Tab:
                    case ComposerKey.Enter: completed = slash.Accept(); return ComposerAction.Taken;
                    case ComposerKey.Escape: slash.Dismiss(text); return ComposerAction.Taken;
                }
            }
            return key == ComposerKey.Enter && !shift && !string.IsNullOrWhiteSpace(text) ? ComposerAction.Send : ComposerAction.None;
        }
    }
}
