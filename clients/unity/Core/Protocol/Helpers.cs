// What the client adds to the generated protocol classes (Generated/Types.g.cs, partial): helpers
// and the defaults a view starts from. No member of the wire is declared here.
using System.Collections.Generic;

namespace Codiva.Protocol
{
    public sealed partial class ImageInput
    {
        /// The media types the model API takes (anything else is refused by the server).
        public static readonly string[] MediaTypes = { "image/png", "image/jpeg", "image/gif", "image/webp" };

        public static ImageInput FromBytes(string mediaType, byte[] bytes)
        {
            if (System.Array.IndexOf(MediaTypes, mediaType) < 0)
                throw new System.ArgumentException("not an image type the model takes: " + mediaType);
            return new ImageInput { MediaType = mediaType, Data = System.Convert.ToBase64String(bytes) };
        }
    }

    public sealed partial class McpServerConfig
    {
        /// A server over Streamable HTTP; `headers` are sent with every request
        /// (`Authorization: Bearer …`).
        public static McpServerConfig Http(string url, Dictionary<string, string> headers = null) =>
            new McpServerConfig { Type = Known.McpServerConfig.Http, Url = url, Headers = headers };

        /// A program the agent starts and speaks to over its stdin and stdout.
        public static McpServerConfig Stdio(string command, List<string> args = null, Dictionary<string, string> env = null) =>
            new McpServerConfig { Type = Known.McpServerConfig.Stdio, Command = command, Args = args, Env = env };
    }

    public sealed partial class CreateParams
    {
        /// `block` after what the session is already told (`append_system_prompt`, a blank line
        /// between); nothing for an empty block. The same params, for chaining.
        public CreateParams AppendInstructions(string block)
        {
            if (string.IsNullOrEmpty(block)) return this;
            AppendSystemPrompt = string.IsNullOrEmpty(AppendSystemPrompt) ? block : AppendSystemPrompt + "\n\n" + block;
            return this;
        }
    }

    public sealed partial class UsageView
    {
        public UsageView() { Tokens = new TokenUsage(); }
    }

    public sealed partial class AgentInfo
    {
        public AgentInfo()
        {
            Models = new List<ModelChoice>();
            Commands = new List<CommandInfo>();
        }

        /// The entry of this agent's catalog that the model it reports (`model`) is: that entry
        /// itself, else the one alias that is a word of the model's name (`sonnet` for
        /// `claude-sonnet-4-5-20250929`; `default`, which names no model, never matches a
        /// word); null when none or several match (codiva_protocol::agent::catalog_entry).
        public string CatalogEntry(string model)
        {
            if (model == null) return null;
            foreach (var choice in Models)
                if (choice.Id == model) return choice.Id;
            var words = new HashSet<string>();
            var start = -1;
            for (var i = 0; i <= model.Length; i++)
            {
                var alphanumeric = i < model.Length && model[i] < 0x80 && char.IsLetterOrDigit(model[i]);
                if (alphanumeric && start < 0) start = i;
                else if (!alphanumeric && start >= 0) { words.Add(model.Substring(start, i - start)); start = -1; }
            }
            string found = null;
            foreach (var choice in Models)
            {
                if (choice.Id == "default" || !words.Contains(choice.Id)) continue;
                if (found != null) return null;
                found = choice.Id;
            }
            return found;
        }
    }
}
