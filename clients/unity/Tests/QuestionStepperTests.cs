// The question stepper: a prompt of several questions answered as a whole, in the params
// `session/answerQuestion` takes (docs/serve-api.md), and the EN/JA words it shows.
using System;
using System.Collections.Generic;
using System.Linq;
using System.Text.RegularExpressions;
using Codiva.Json;
using Codiva.Panel;
using Codiva.Protocol;
using NUnit.Framework;

namespace Codiva.Tests
{
    [TestFixture]
    public class QuestionStepperTests
    {
        const string Extras = "Which extras do you want?";
        const string Greeting = "Which language should the greeting use?";

        static Question Q(string text, bool multi, params string[] labels) => new Question
        {
            QuestionValue = text,
            MultiSelect = multi,
            Options = labels.Select(l => new QuestionOption { Label = l }).ToList(),
        };

        static Prompt TwoQuestions() => new Prompt
        {
            Kind = "question",
            RequestId = "q-1",
            Questions = new List<Question> { Q(Extras, true, "Emoji", "Signature", "Footer"), Q(Greeting, false, "English", "Japanese") },
        };

        static string Json(QuestionParams p) => JsonText.Write(Wire.ToJson(p));

        [Test]
        public void Two_questions_answered_as_a_whole_with_a_multi_select_and_free_text()
        {
            var stepper = new QuestionStepper("s-1", TwoQuestions());
            Assert.AreEqual(Extras, stepper.Current.QuestionValue);
            stepper.Choose(1);
            stepper.Choose(2);
            stepper.Choose(0);
            stepper.Choose(2);
            Assert.IsTrue(stepper.Next());
            Assert.AreEqual(Greeting, stepper.Current.QuestionValue);
            Assert.IsTrue(stepper.IsLast);
            stepper.Choose(0);
            stepper.SetOtherText("  Klingon ");
            Assert.IsFalse(stepper.IsChosen(0));
            Assert.IsTrue(stepper.IsOtherChosen);
            Assert.AreEqual(
                "{\"session_id\":\"s-1\",\"request_id\":\"q-1\",\"answers\":{\"" + Extras + "\":[\"Emoji\",\"Signature\"],\"" + Greeting + "\":\"Klingon\"}}",
                Json(stepper.Submit()));
        }

        [Test]
        public void Back_keeps_earlier_answers()
        {
            var stepper = new QuestionStepper("s-1", TwoQuestions());
            stepper.Choose(0);
            stepper.Choose(1);
            stepper.Next();
            stepper.SetOtherText("Klingon");
            Assert.IsTrue(stepper.Back());
            Assert.AreEqual(0, stepper.Index);
            Assert.IsTrue(stepper.IsChosen(0) && stepper.IsChosen(1) && !stepper.IsChosen(2));
            Assert.IsFalse(stepper.Back());
            Assert.IsTrue(stepper.Next());
            Assert.AreEqual("Klingon", stepper.OtherText);
            Assert.AreEqual(new List<string> { "Emoji", "Signature" }, stepper.AnswerOf(0));
            Assert.AreEqual("Klingon", stepper.AnswerOf(1));
        }

        [Test]
        public void Submit_is_refused_while_a_question_is_unanswered()
        {
            var stepper = new QuestionStepper("s-1", TwoQuestions());
            Assert.IsFalse(stepper.CanNext);
            Assert.IsFalse(stepper.Next());
            Assert.IsFalse(stepper.CanSubmit);
            Assert.IsNull(stepper.Submit());
            stepper.Choose(0);
            stepper.Choose(0);
            Assert.IsFalse(stepper.CanNext, "toggled off again: unanswered");
            stepper.Choose(0);
            stepper.Next();
            Assert.IsNull(stepper.Submit());
            stepper.ChooseOther();
            Assert.IsNull(stepper.Submit(), "Other chosen without text is no answer");
            stepper.SetOtherText("   ");
            Assert.IsNull(stepper.Submit());
            stepper.Choose(1);
            Assert.AreEqual("{\"session_id\":\"s-1\",\"request_id\":\"q-1\",\"answers\":{\"" + Extras + "\":[\"Emoji\"],\"" + Greeting + "\":\"Japanese\"}}",
                Json(stepper.Submit()));
        }

        [Test]
        public void A_multi_select_answer_carries_its_free_text_and_a_single_select_takes_the_last_choice()
        {
            var stepper = new QuestionStepper("s-1", TwoQuestions());
            stepper.SetOtherText("Confetti");
            stepper.Choose(2);
            Assert.AreEqual(new List<string> { "Footer", "Confetti" }, stepper.AnswerOf(0));
            stepper.ChooseOther();
            Assert.AreEqual(new List<string> { "Footer" }, stepper.AnswerOf(0));
            stepper.Next();
            stepper.SetOtherText("Klingon");
            stepper.Choose(1);
            Assert.AreEqual("Japanese", stepper.AnswerOf(1));
            stepper.ChooseOther();
            Assert.AreEqual("Klingon", stepper.AnswerOf(1));
            Assert.Throws<ArgumentOutOfRangeException>(() => stepper.Choose(2));
        }

        [Test]
        public void Decline_is_the_protocols_decline()
        {
            var stepper = new QuestionStepper("s-1", TwoQuestions());
            stepper.Choose(0);
            Assert.AreEqual("{\"session_id\":\"s-1\",\"request_id\":\"q-1\",\"decline\":true,\"message\":\"Let's talk first.\"}", Json(stepper.Decline("Let's talk first.")));
            Assert.AreEqual("{\"session_id\":\"s-1\",\"request_id\":\"q-1\",\"decline\":true}", Json(stepper.Decline()));
        }

        [Test]
        public void A_permission_prompt_is_not_a_question()
        {
            Assert.Throws<ArgumentException>(() => new QuestionStepper("s-1", new Prompt { Kind = "permission", RequestId = "p" }));
        }

        [Test]
        public void The_heading_says_where_the_user_is_in_both_languages()
        {
            var stepper = new QuestionStepper("s-1", TwoQuestions());
            Assert.AreEqual("Question 1 of 2 · Choose any", stepper.Heading(Language.En));
            stepper.Choose(0);
            stepper.Next();
            Assert.AreEqual("質問 2 / 2 · 1つ選択", stepper.Heading(Language.Ja));
        }
    }

    [TestFixture]
    public class StringsTests
    {
        [Test]
        public void Every_key_is_in_both_languages_with_the_same_placeholders()
        {
            var keys = Enum.GetValues(typeof(Str)).Cast<Str>().ToList();
            foreach (var language in new[] { Language.En, Language.Ja })
            {
                Assert.AreEqual(keys.Count, Strings.Of(language).Count, language.ToString());
                foreach (var key in keys)
                {
                    Assert.IsTrue(Strings.Of(language).ContainsKey(key), language + " lacks " + key);
                    Assert.IsNotEmpty(Strings.Of(language)[key].Trim(), language + " " + key);
                }
            }
            foreach (var key in keys)
            {
                Assert.AreEqual(Placeholders(Strings.En[key]), Placeholders(Strings.Ja[key]), key.ToString());
                Assert.IsFalse(Regex.IsMatch(WithoutNames(Strings.Ja[key]), "[A-Za-z]"), "untranslated: " + key);
            }
            Assert.AreEqual(Language.Ja, Strings.FromSystemLanguage("Japanese"));
            Assert.AreEqual(Language.En, Strings.FromSystemLanguage("French"));
        }

        /// Names Japanese text writes in Latin letters as they are (products, commands, units):
        /// what is left must hold none.
        static readonly string[] LatinNames = { "Claude Code", "Unity", "uLoop", "npm", "MB", "KB", "Windows" };

        static string WithoutNames(string text) => LatinNames.Aggregate(text, (left, name) => left.Replace(name, ""));

        [Test]
        public void Japanese_keeps_product_names_in_latin_letters_and_still_catches_english()
        {
            Assert.IsFalse(Regex.IsMatch(WithoutNames("Claude Code用のUnity公式プラグイン、uLoop、npm、5 MB"), "[A-Za-z]"));
            Assert.IsTrue(Regex.IsMatch(WithoutNames("Unityのplugin"), "[A-Za-z]"));
            foreach (var key in Enum.GetValues(typeof(Str)).Cast<Str>())
                Assert.IsFalse(Regex.IsMatch(Strings.Ja[key], "クロード|ユニティ|ユーループ|エヌピーエム"), "a product name spelled out in katakana: " + key);
        }

        static string Placeholders(string text) => string.Join(",", Regex.Matches(text, @"\{\d+\}").Cast<Match>().Select(m => m.Value).OrderBy(v => v));
    }
}
