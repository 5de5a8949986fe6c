// Words of the window that come from Core's states (the connection), in the panel's language, so
// the Editor binds a label to a function of the state and decides nothing.
using Codiva.Client;
using Codiva.Panel;

namespace Codiva.Unity
{
    public static class PanelWords
    {
        /// The window's tab title: `codiva`, with the notifier's badge while it counts.
        public static string WindowTitle(int badge) => badge > 0 ? "codiva (" + badge + ")" : "codiva";

        public static string Connection(ConnectionState state, Language language)
        {
            switch (state)
            {
                case ConnectionState.Connecting: return Strings.Get(Str.ConnConnecting, language);
                case ConnectionState.Connected: return Strings.Get(Str.ConnConnected, language);
                case ConnectionState.Reconnecting: return Strings.Get(Str.ConnReconnecting, language);
                case ConnectionState.Stopped: return Strings.Get(Str.ConnStopped, language);
                default: return Strings.Get(Str.ConnDisconnected, language);
            }
        }
    }
}
