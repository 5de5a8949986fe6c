// What the panel shows, decided here (tested) so that the Editor window only binds: a card per
// log entry, the words of a session row, and the Unity context attached to a message.
using System;
using System.Collections.Generic;
using System.Text;
using Codiva.Protocol;

namespace Codiva.Client
{
    /// One card of the conversation view.
    public sealed class Card
    {
        public long Id;
        /// `user`, `assistant`, `thinking`, `tool`, `note`, `subagent_prompt` (the style class).
        public string Kind;
        public string Title;
        public string Body;
        /// For tool cards: `running`, `succeeded`, `failed`, `denied`; for notes their level.
        public string State;
    }

    /// One MCP server of a session as the panel lists it.
    public sealed class McpLine
    {
        public string Name;
        /// The agent's status (`connected`, `failed`, `not_reported`, …): the style class.
        public string Status;
        /// What the line says: the name, the status in words, the agent's error.
        public string Text;
        /// Offer Reconnect: the server failed and the agent can connect one again.
        public bool CanReconnect;
    }

    public static class Presentation
    {
        const int MaxBody = 8000;

        /// A session's MCP servers (`SessionInfo.McpServers`) with what the agent can do
        /// (`capabilities` null: not known yet, so no reconnect is offered).
        public static List<McpLine> McpLines(List<McpServerState> servers, AgentCapabilities capabilities)
        {
            var lines = new List<McpLine>();
            if (servers == null) return lines;
            foreach (var server in servers)
            {
                var words = McpWords(server.Status);
                var text = server.Name + ": " + words;
                if (!string.IsNullOrEmpty(server.Error)) text += " (" + server.Error + ")";
                lines.Add(new McpLine
                {
                    Name = server.Name,
                    Status = server.Status,
                    Text = Clip(text).Replace('\n', ' '),
                    CanReconnect = server.Status == Known.McpStatus.Failed && capabilities != null && capabilities.McpReconnect == true,
                });
            }
            return lines;
        }

        static string McpWords(string status)
        {
            switch (status)
            {
                case Known.McpStatus.Pending: return "connecting";
                case Known.McpStatus.Connected: return "connected";
                case Known.McpStatus.Failed: return "failed";
                case Known.McpStatus.NeedsAuth: return "needs login";
                case Known.McpStatus.Disabled: return "disabled";
                case Known.McpStatus.NotReported: return "not reported by the agent";
                // `unknown`, and a status of a newer codiva.
                default: return "unknown";
            }
        }

        public static Card CardOf(LogEntry entry)
        {
            var card = new Card { Id = entry.Id, Kind = entry.Kind ?? "other", Body = Clip(entry.Text) };
            switch (entry.Kind)
            {
                case "user": card.Title = "You"; break;
                case "assistant": card.Title = "Agent"; break;
                case "thinking": card.Title = "Thinking"; break;
                case "subagent_prompt": card.Title = "Subagent task"; break;
                case "note": card.Title = "Note"; card.State = entry.Level; break;
                case "tool":
                    card.Title = string.IsNullOrEmpty(entry.Title) ? entry.Name : entry.Title;
                    if (!string.IsNullOrEmpty(entry.Summary)) card.Title += ": " + entry.Summary;
                    card.State = entry.Status;
                    card.Body = Clip(ToolBody(entry));
                    break;
                default: card.Title = entry.Kind; break;
            }
            return card;
        }

        static string ToolBody(LogEntry entry)
        {
            var body = new StringBuilder();
            var shown = false;
            if (entry.Content != null)
            {
                foreach (var item in entry.Content)
                {
                    if (item == null) continue;
                    if (item.Type == Known.ToolContent.Terminal)
                    {
                        body.Append("$ ").Append(item.Command);
                        if (!string.IsNullOrEmpty(item.Output)) { body.Append('\n').Append(item.Output); shown = true; }
                    }
                    else if (item.Type == Known.ToolContent.Diff) body.Append(item.Path).Append('\n').Append(item.New ?? "");
                    else if (item.Type == Known.ToolContent.Text) body.Append(item.Text);
                    body.Append('\n');
                }
            }
            // The result, unless a terminal showed its output already.
            if (!shown && !string.IsNullOrEmpty(entry.Result)) body.Append(entry.Result);
            return body.ToString().TrimEnd('\n');
        }

        /// The session list's line: title and status (the agent's own status word).
        public static string RowText(SessionInfo row)
        {
            if (row == null) return "";
            var text = row.Title + " — " + row.Status;
            if (row.PendingPrompts > 0) text += " (" + row.PendingPrompts + " waiting)";
            return text;
        }

        /// Model text for a label: control characters (escape sequences, etc.) removed, length capped.
        public static string Clip(string text)
        {
            if (string.IsNullOrEmpty(text)) return "";
            var clean = new StringBuilder(Math.Min(text.Length, MaxBody + 1));
            foreach (var c in text)
            {
                if (clean.Length >= MaxBody) { clean.Append('…'); break; }
                if (c == '\n' || c == '\t' || (c >= 0x20 && c != 0x7f && !(c >= 0x80 && c < 0xa0))) clean.Append(c);
            }
            return clean.ToString();
        }
    }

    /// A piece of Unity Editor context the user attaches to a message (selection, console errors).
    public sealed class ContextChip
    {
        public string Kind;
        public string Label;
        public string Detail;
    }

    public static class ContextBlock
    {
        public const int MaxChipBytes = 2048;
        public const string Header = "===== ATTACHED UNITY EDITOR CONTEXT =====";
        public const string Footer = "===== END OF UNITY EDITOR CONTEXT =====";

        /// The message with the chips appended as one delimited block (each chip at most 2 KB).
        public static string Attach(string message, IList<ContextChip> chips)
        {
            if (chips == null || chips.Count == 0) return message;
            var block = new StringBuilder(message).Append("\n\n").Append(Header).Append('\n');
            foreach (var chip in chips)
            {
                var detail = Truncate(chip.Detail ?? "", MaxChipBytes);
                block.Append("[").Append(chip.Kind).Append("] ").Append(chip.Label).Append('\n');
                if (detail.Length > 0) block.Append(detail).Append('\n');
            }
            return block.Append(Footer).ToString();
        }

        static string Truncate(string text, int maxBytes)
        {
            if (Encoding.UTF8.GetByteCount(text) <= maxBytes) return text;
            var length = text.Length;
            while (length > 0 && Encoding.UTF8.GetByteCount(text.Substring(0, length)) > maxBytes - 3) length--;
            if (length > 0 && char.IsHighSurrogate(text[length - 1])) length--;
            return text.Substring(0, length) + "…";
        }
    }
}
