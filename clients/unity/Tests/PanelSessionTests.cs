// The panel's models around sessions: image attachments within the agent's limits, login through
// `agents/login` as its progress says, the history of the repository's sessions (open, rename,
// the two-step discard, restore), and notifications with a badge while the panel is unfocused.
using System;
using System.Collections.Generic;
using System.Linq;
using Codiva.Client;
using Codiva.Json;
using Codiva.Panel;
using Codiva.Protocol;
using Codiva.Rpc;
using NUnit.Framework;
using static Codiva.Tests.Script;

namespace Codiva.Tests
{
    [TestFixture]
    public class PanelSessionTests
    {
        static byte[] Png(int width, int height, int extra = 0)
        {
            var b = new byte[33 + extra];
            new byte[] { 0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52 }.CopyTo(b, 0);
            b[16] = (byte)(width >> 24); b[17] = (byte)(width >> 16); b[18] = (byte)(width >> 8); b[19] = (byte)width;
            b[20] = (byte)(height >> 24); b[21] = (byte)(height >> 16); b[22] = (byte)(height >> 8); b[23] = (byte)height;
            return b;
        }

        static byte[] Jpeg(int width, int height) => new byte[]
        {
            0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0x4A, 0x46, // APP0 (length 4)
            0xFF, 0xC0, 0x00, 0x11, 0x08, (byte)(height >> 8), (byte)height, (byte)(width >> 8), (byte)width, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        };

        static byte[] Gif(int width, int height) => new byte[] { 0x47, 0x49, 0x46, 0x38, 0x39, 0x61, (byte)width, (byte)(width >> 8), (byte)height, (byte)(height >> 8), 0, 0, 0 };

        static byte[] WebpX(int width, int height)
        {
            var b = new byte[30];
            System.Text.Encoding.ASCII.GetBytes("RIFF").CopyTo(b, 0);
            System.Text.Encoding.ASCII.GetBytes("WEBPVP8X").CopyTo(b, 8);
            int w = width - 1, h = height - 1;
            b[24] = (byte)w; b[25] = (byte)(w >> 8); b[26] = (byte)(w >> 16);
            b[27] = (byte)h; b[28] = (byte)(h >> 8); b[29] = (byte)(h >> 16);
            return b;
        }

        [Test]
        public void Images_are_taken_by_their_bytes_within_the_agents_limits()
        {
            var images = new ImageAttachments();
            Assert.AreEqual(AttachmentRefusal.None, images.Add("shot.png", Png(1920, 1080), Language.En));
            Assert.AreEqual(AttachmentRefusal.None, images.Add("photo", Jpeg(800, 600), Language.En));
            Assert.AreEqual(AttachmentRefusal.None, images.Add("anim", Gif(320, 200), Language.En));
            Assert.AreEqual(AttachmentRefusal.None, images.Add("w", WebpX(8000, 4000), Language.En));
            Assert.AreEqual(new[] { "image/png", "image/jpeg", "image/gif", "image/webp" }, images.Items.Select(i => i.MediaType).ToArray());
            Assert.AreEqual(new[] { 1920, 800, 320, 8000 }, images.Items.Select(i => i.Width).ToArray());
            Assert.AreEqual(new[] { 1080, 600, 200, 4000 }, images.Items.Select(i => i.Height).ToArray());

            // The type is the bytes', not the name's.
            Assert.AreEqual(AttachmentRefusal.UnsupportedType, images.Add("fake.png", System.Text.Encoding.ASCII.GetBytes("GIF? no, text"), Language.En));
            Assert.AreEqual("fake.png: not a PNG, JPEG, GIF or WebP image", images.LastRefusal);
            Assert.AreEqual(AttachmentRefusal.UnsupportedType, images.Add("bmp", new byte[] { 0x42, 0x4D, 0, 0, 0, 0 }, Language.Ja));
            Assert.AreEqual("bmp: 対応していない画像形式です", images.LastRefusal);
            Assert.AreEqual(AttachmentRefusal.Empty, images.Add("e", new byte[0], Language.En));
            Assert.AreEqual(AttachmentRefusal.TooManyPixels, images.Add("wide", Png(8001, 10), Language.En));
            Assert.AreEqual("wide: wider or taller than 8000 pixels", images.LastRefusal);
            Assert.AreEqual(AttachmentRefusal.TooManyPixels, images.Add("tall", Jpeg(10, 8001), Language.En));
            // 5 MB of base64: 3,932,160 bytes is exactly that; one byte more is over.
            Assert.AreEqual(AttachmentRefusal.None, images.Add("big", Png(100, 100, 3932160 - 33), Language.En));
            Assert.AreEqual(AttachmentRefusal.TooLarge, images.Add("bigger", Png(100, 100, 3932160 - 33 + 1), Language.En));
            Assert.AreEqual("bigger: larger than 5 MB", images.LastRefusal);
            Assert.AreEqual("bigger: 5 MBを超えています", (images.Add("bigger", Png(100, 100, 3932160 - 32), Language.Ja) == AttachmentRefusal.TooLarge ? images.LastRefusal : ""));

            var taken = images.Take();
            Assert.AreEqual(5, taken.Count);
            Assert.AreEqual(Convert.ToBase64String(Png(1920, 1080)), taken[0].Data);
            Assert.IsNull(images.Take(), "nothing left after a send");

            // At most 20 a message, and 32 MB of base64 in all.
            for (var i = 0; i < ImageAttachments.MaxCount; i++) Assert.AreEqual(AttachmentRefusal.None, images.Add("i" + i, Gif(1, 1), Language.En));
            Assert.AreEqual(AttachmentRefusal.TooMany, images.Add("one more", Gif(1, 1), Language.En));
            Assert.AreEqual("At most 20 images per message", images.LastRefusal);
            images.Take();
            for (var i = 0; i < 6; i++) Assert.AreEqual(AttachmentRefusal.None, images.Add("b" + i, Png(10, 10, 3932160 - 33), Language.En));
            Assert.AreEqual(AttachmentRefusal.TooLarge, images.Add("seventh", Png(10, 10, 3932160 - 33), Language.En), "the seventh passes 32 MB in all");
            images.Remove(0);
            Assert.AreEqual(5, images.Items.Count);
            Assert.AreEqual(AttachmentRefusal.None, images.Add("seventh", Png(10, 10, 3932160 - 33), Language.En));
        }

        [Test]
        public void A_login_follows_its_progress_and_sends_only_what_it_asks_for()
        {
            var login = new LoginModel("claude", new LoginState { State = "not_logged_in" });
            Assert.AreEqual("Not logged in", login.Describe(Language.En));
            Assert.IsTrue(login.OffersLogin);
            var start = login.Start();
            Assert.AreEqual("claude", start.Agent);
            Assert.IsNull(login.Start(), "one login at a time");
            Assert.IsNull(login.SubmitCode("abc"), "no code is read before the login says so");
            login.Started(new LoginStarted { LoginId = "L1" });
            login.Apply(new LoginProgressParams { LoginId = "L1", Agent = "claude", Phase = "running" });
            Assert.IsNull(login.SubmitCode("abc"), "a login that reads no code is sent none");
            Assert.AreEqual("Logging in… finish in your browser", login.Describe(Language.En));
            Assert.IsFalse(login.Apply(new LoginProgressParams { LoginId = "L0", Agent = "claude", Phase = "running" }), "another login's");
            Assert.IsFalse(login.Apply(new LoginProgressParams { LoginId = "L1", Agent = "codex", Phase = "running" }));
            Assert.IsTrue(login.Apply(new LoginProgressParams
            {
                LoginId = "L1", Agent = "claude", Phase = "running", AcceptsCode = true,
                Url = "https://claude.ai/oauth/authorize?code=true", Output = new List<string> { "Open\u001b[0m this <b>", "x" },
            }));
            Assert.AreEqual(LoginStage.Running, login.Stage);
            Assert.AreEqual("https://claude.ai/oauth/authorize?code=true", login.Url);
            Assert.AreEqual("Paste the code the page shows", login.Describe(Language.En));
            Assert.AreEqual("ページに表示されたコードを貼り付け", login.Describe(Language.Ja));
            Assert.AreEqual("Open[0m this <b>", login.Output[0]);
            Assert.IsNull(login.SubmitCode("   "));
            var code = login.SubmitCode("  abc#def \n");
            Assert.AreEqual("L1", code.LoginId);
            Assert.AreEqual("abc#def", code.Text);
            Assert.AreEqual("L1", login.Cancel().LoginId);
            login.Apply(new LoginProgressParams { LoginId = "L1", Agent = "claude", Phase = "succeeded" });
            Assert.AreEqual(LoginStage.Succeeded, login.Stage);
            Assert.AreEqual("Logged in", login.Describe(Language.En));
            Assert.IsFalse(login.OffersLogin);
            Assert.IsNull(login.Cancel(), "nothing to cancel once it ended");

            // An address that is not http(s) is never a link.
            var other = new LoginModel("gemini");
            other.Start();
            other.Apply(new LoginProgressParams { LoginId = "G", Agent = "gemini", Phase = "running", Url = "javascript:alert(1)", ChooseMethod = true,
                Methods = new List<LoginMethod> { new LoginMethod { Id = "oauth-personal", Name = "Log in with Google" }, new LoginMethod { Id = "gemini-api-key", Name = "API key" } } });
            Assert.AreEqual("G", other.LoginId, "a progress read before the answer names the login");
            Assert.IsNull(other.Url);
            Assert.AreEqual("Choose how to log in", other.Describe(Language.En));
            Assert.IsNull(other.ChooseMethod("vertex-ai"), "only an offered way");
            Assert.AreEqual("oauth-personal", other.ChooseMethod("oauth-personal").Text);
            other.Apply(new LoginProgressParams { LoginId = "G", Agent = "gemini", Phase = "failed", EnvVars = new List<string> { "GEMINI_API_KEY" } });
            Assert.AreEqual("Set GEMINI_API_KEY where the agents run, then try again", other.Describe(Language.En));
            Assert.IsTrue(other.OffersLogin);
            var refused = new LoginModel("claude");
            refused.Start();
            refused.Refused("a login of claude is running");
            Assert.AreEqual("Login failed: a login of claude is running", refused.Describe(Language.En));
            Assert.AreEqual("Login unknown: no credentials file", LoginModel.CheckedWords(new LoginState { State = "unknown", Reason = "no credentials file" }, Language.En));
            Assert.AreEqual("ログイン済み (oauth)", LoginModel.CheckedWords(new LoginState { State = "logged_in", Method = "oauth" }, Language.Ja));
        }

        static SessionInfo Info(string id, string title, long created, string phase = "active", string status = "completed") =>
            new SessionInfo { Id = id, Title = title, Prompt = "prompt of " + id, CreatedAt = created, Phase = phase, Status = status, Agent = "claude", Todos = new TodoProgress() };

        [Test]
        public void The_history_lists_the_repositorys_sessions_newest_first_with_what_each_can_do()
        {
            var rows = new[] { Info("a", "Add <T> support", 100), Info("b", "Fix bug", 300, "discarded"), Info("c", "Merge me", 200, "merged") };
            var all = History.Rows(rows);
            Assert.AreEqual(new[] { "b", "c", "a" }, all.Select(r => r.Id).ToArray());
            Assert.AreEqual(new[] { false, false, true }, all.Select(r => r.CanDiscard).ToArray());
            Assert.AreEqual(new[] { true, false, false }, all.Select(r => r.CanRestore).ToArray());
            Assert.AreEqual("Fix bug  discarded", PanelRich.Shown(all[0].Rich(Language.En)));
            Assert.AreEqual("Add <T> support  completed", PanelRich.Shown(all[2].Rich(Language.En)));
            Assert.AreEqual("Fix bug  破棄済み", PanelRich.Shown(all[0].Rich(Language.Ja)));
            Assert.AreEqual(new[] { "a" }, History.Rows(rows, "<t> SUP").Select(r => r.Id).ToArray());
            Assert.AreEqual(new[] { "c" }, History.Rows(rows, "prompt of c").Select(r => r.Id).ToArray());
            Assert.AreEqual("b", History.Restore(all[0]).SessionId);
            Assert.IsNull(History.Restore(all[2]));

            var rename = History.Rename("a", "  new\u001b[31m name\u202e " + new string('x', 100));
            Assert.AreEqual("new[31m name " + new string('x', 80 - "new[31m name ".Length), rename.Title);
            Assert.AreEqual(80, rename.Title.Length);
            Assert.AreEqual("", History.Rename("a", " \n ").Title, "an empty title goes back to the prompt's line");
            var emoji = History.Rename("a", new string('a', 79) + "😀");
            Assert.AreEqual(79, emoji.Title.Length, "never half a surrogate pair");

            // From the store: its rows.
            var store = new SessionStore();
            store.Reset(new ManagerSnapshot { Seq = 1, Sessions = rows.ToList() });
            Assert.AreEqual(new[] { "b", "c", "a" }, History.Rows(store).Select(r => r.Id).ToArray());
        }

        [Test]
        public void A_discard_confirms_exactly_the_preview_shown_and_a_changed_session_shows_the_new_one()
        {
            var flow = new DiscardFlow("s");
            var preview = flow.Begin();
            Assert.IsNull(preview.ConfirmToken, "the first request only previews");
            Assert.IsNull(flow.Confirm(), "nothing to confirm before a preview");
            flow.Answered(new DiscardOutcome { Outcome = "needs_confirmation", ConfirmToken = "t1", Preview = new DiscardPreview { Uncommitted = new List<string> { "a.txt" }, UnmergedCommits = new List<string> { "c1", "c2" } } });
            Assert.AreEqual("Discard 1 uncommitted files and 2 unmerged commits? (kept in the archive; Restore brings them back)", flow.Question(Language.En));
            Assert.AreEqual("t1", flow.Confirm().ConfirmToken);
            Assert.IsNull(flow.Confirm(), "confirmed once");
            // Refused: it changed since the preview; the new preview and token come with it.
            var data = JsonText.Parse("{\"reason\":\"changed_since_preview\",\"args\":[\"s\"],\"confirm_token\":\"t2\",\"preview\":{\"uncommitted\":[\"a.txt\",\"late.txt\"],\"unmerged_commits\":[]}}");
            flow.Refused(new RpcException(-32002, "changed", data));
            Assert.AreEqual(DiscardStage.Confirming, flow.Stage);
            Assert.AreEqual("The session changed since the preview: check again\nDiscard 2 uncommitted files and 0 unmerged commits? (kept in the archive; Restore brings them back)", flow.Question(Language.En));
            Assert.AreEqual("t2", flow.Confirm().ConfirmToken);
            flow.Answered(new DiscardOutcome { Outcome = "discarded", Session = Info("s", "x", 1, "discarded") });
            Assert.AreEqual(DiscardStage.Done, flow.Stage);
            // Another refusal ends it with its message.
            var other = new DiscardFlow("s");
            other.Begin();
            other.Refused(new RpcException(-32002, "still preparing", JsonText.Parse("{\"reason\":\"still_preparing\",\"args\":[]}")));
            Assert.AreEqual(DiscardStage.Failed, other.Stage);
            Assert.AreEqual("still preparing", other.Error);
            Assert.IsNull(other.Confirm());
        }

        static SessionView Session(string status, params Prompt[] prompts)
        {
            var view = new SessionView { Row = Info("s", "My <task>", 1, status: status) };
            view.Prompts.AddRange(prompts);
            return view;
        }

        [Test]
        public void Notifications_count_on_the_badge_only_while_the_panel_is_unfocused()
        {
            var notifier = new Notifier();
            var permission = new Prompt { Kind = "permission", RequestId = "p1", Tool = "Bash", Title = "Bash" };
            var question = new Prompt { Kind = "question", RequestId = "q1" };
            // A session seen for the first time notifies nothing, even with an open prompt.
            notifier.SetFocused(false);
            Assert.IsEmpty(notifier.Observe("s", Session("running", permission), Language.En));
            Assert.AreEqual(0, notifier.Badge);
            var notices = notifier.Observe("s", Session("running", permission, question), Language.En);
            Assert.AreEqual(new[] { "My <task>: has a question" }, notices.Select(n => n.Words).ToArray());
            notices = notifier.Observe("s", Session("completed"), Language.Ja);
            Assert.AreEqual(new[] { "My <task>: 完了" }, notices.Select(n => n.Words).ToArray());
            Assert.AreEqual(NoticeKind.TurnEnded, notices[0].Kind);
            Assert.AreEqual(2, notifier.Badge);
            // Nothing new: nothing more.
            Assert.IsEmpty(notifier.Observe("s", Session("completed"), Language.En));
            notifier.SetFocused(true);
            Assert.AreEqual(0, notifier.Badge);
            // Focused: seen, not counted.
            Assert.IsEmpty(notifier.Observe("s", Session("running", new Prompt { Kind = "permission", RequestId = "p2", Tool = "mcp__unity-ops__ping" }), Language.En));
            Assert.AreEqual(0, notifier.Badge);
            notifier.SetFocused(false);
            var later = notifier.Observe("s", Session("running", new Prompt { Kind = "permission", RequestId = "p2", Tool = "mcp__unity-ops__ping" }, new Prompt { Kind = "permission", RequestId = "p3", Tool = "mcp__unity-ops__ping" }), Language.En);
            Assert.AreEqual(new[] { "My <task>: wants to use unity-ops: ping" }, later.Select(n => n.Words).ToArray());
            Assert.AreEqual(1, notifier.Badge);
            // A status that is no end (still running) notifies nothing.
            Assert.IsEmpty(notifier.Observe("s", Session("awaiting_permission", new Prompt { Kind = "permission", RequestId = "p2" }, new Prompt { Kind = "permission", RequestId = "p3" }), Language.En));
        }
    }
}
