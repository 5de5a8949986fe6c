// The panel's Core logic against the real `codiva` (stdio) and the real `claude` (mock model
// server): a two-question AskUserQuestion answered as a whole through the QuestionStepper (a
// multi-select and a free-text answer), and the reply that follows — with `List<int>` and
// `<color=red>` in it — rendered by RichText as text.
using System;
using System.Collections.Generic;
using System.Linq;
using Codiva.Client;
using Codiva.Panel;
using Codiva.Protocol;
using Codiva.Rpc;
using NUnit.Framework;
using static Codiva.Tests.Script;
using static Codiva.Tests.Waits;

namespace Codiva.Tests
{
    [TestFixture]
    public class PanelEndToEndTests
    {
        const string Extras = "Which extras do you want?";
        const string Greeting = "Which language should the greeting use?";
        const string Reply = "Use `List<int>` or List<int>, and <color=red>x</color> **stays** text.";

        static object TwoQuestions() => Rules(
            When("last_user_contains", "ASK two questions", ToolUse("AskUserQuestion", Obj(
                "questions", List(
                    Obj("question", Extras, "header", "Extras", "multiSelect", true,
                        "options", List(Obj("label", "Emoji", "description", "e"), Obj("label", "Signature", "description", "s"), Obj("label", "Footer", "description", "f"))),
                    Obj("question", Greeting, "header", "Language", "multiSelect", false,
                        "options", List(Obj("label", "English", "description", "en"), Obj("label", "Japanese", "description", "ja"))))))),
            When("last_user_contains", "Klingon", Text(Reply)));

        [Test]
        public void A_two_question_prompt_is_answered_as_a_whole_and_the_reply_shows_its_markup_as_text()
        {
            using (var world = new World(TwoQuestions()))
            using (var main = new ThreadDispatcher())
            {
                var client = new CodivaClient(new StdioTransportFactory(world.Program()), main);
                try
                {
                    client.Start();
                    Until(main, () => client.State == ConnectionState.Connected, "the connection");
                    SessionInfo created = null;
                    client.CreateSession(new CreateParams { Prompt = "ASK two questions" }, r => created = r.Session);
                    Until(main, () => created != null, "session/create's answer");
                    var id = created.Id;
                    client.Watch(id);

                    Until(main, () => client.Store[id]?.Prompts.Any(p => p.Kind == "question") == true, "the question prompt");
                    var prompt = main.Invoke(() => client.Store[id].Prompts.First(p => p.Kind == "question"));
                    var stepper = new QuestionStepper(id, prompt);
                    Assert.AreEqual(2, stepper.Count);
                    Assert.IsTrue(stepper.Current.MultiSelect);
                    stepper.Choose(0);
                    stepper.Choose(1);
                    Assert.IsTrue(stepper.Next());
                    Assert.AreEqual(Greeting, stepper.Current.QuestionValue);
                    Assert.IsFalse(stepper.Current.MultiSelect);
                    Assert.IsNull(stepper.Submit(), "the second question is not answered yet");
                    stepper.SetOtherText("Klingon");
                    var answer = stepper.Submit();
                    Assert.AreEqual(new List<string> { "Emoji", "Signature" }, answer.Answers[Extras]);
                    Assert.AreEqual("Klingon", answer.Answers[Greeting]);
                    client.AnswerQuestion(answer).Wait();
                    Until(main, () => client.Store[id].Prompts.Count == 0, "the question to close");

                    // Both answers reach the model in the one tool result.
                    var request = world.Mock.WaitForRequest(b => b.Contains("Klingon"));
                    // (Claude Code 2.1.332 joins a multi-select answer with ", "; the body is JSON.)
                    StringAssert.Contains("The user answered: \\\"" + Extras + "\\\"=\\\"Emoji, Signature\\\", \\\"" + Greeting + "\\\"=\\\"Klingon\\\".", request);

                    // The reply, as the window shows it: its `<` never a tag.
                    Until(main, () => client.Store[id].Log.Any(e => e.Kind == "assistant" && e.Text == Reply), "the reply");
                    var reply = main.Invoke(() => client.Store[id].Log.Last(e => e.Kind == "assistant"));
                    var card = Presentation.CardOf(reply);
                    var rich = RichText.FromMarkdown(card.Body);
                    Assert.AreEqual("Use List<int> or List<int>, and <color=red>x</color> stays text.", RichTextTests.Shown(rich));
                    StringAssert.Contains("<b>stays</b>", rich);
                    Assert.IsFalse(rich.Contains("<color=red>"), rich);
                }
                finally
                {
                    client.Dispose();
                }
            }
        }
    }
}
