// The words the panel shows, in English and Japanese, in one typed catalog: a key is an enum
// member, so a missing key is a compile error at the call and a missing translation a failing
// parity test (`StringsTests`), never a blank button.
using System;
using System.Collections.Generic;

namespace Codiva.Panel
{
    public enum Language { En, Ja }

    public enum Str
    {
        Next,
        Back,
        Submit,
        Skip,
        Other,
        OtherPlaceholder,
        /// `{0}`: the question's number, `{1}`: how many there are.
        QuestionOf,
        ChooseOne,
        ChooseAny,
        AnswerEveryQuestion,
    }

    public static class Strings
    {
        public static readonly IReadOnlyDictionary<Str, string> En = new Dictionary<Str, string>
        {
            { Str.Next, "Next" },
            { Str.Back, "Back" },
            { Str.Submit, "Submit" },
            { Str.Skip, "Skip" },
            { Str.Other, "Other…" },
            { Str.OtherPlaceholder, "Type your own answer" },
            { Str.QuestionOf, "Question {0} of {1}" },
            { Str.ChooseOne, "Choose one" },
            { Str.ChooseAny, "Choose any" },
            { Str.AnswerEveryQuestion, "Answer every question to submit" },
        };

        public static readonly IReadOnlyDictionary<Str, string> Ja = new Dictionary<Str, string>
        {
            { Str.Next, "次へ" },
            { Str.Back, "戻る" },
            { Str.Submit, "送信" },
            { Str.Skip, "スキップ" },
            { Str.Other, "その他…" },
            { Str.OtherPlaceholder, "回答を入力" },
            { Str.QuestionOf, "質問 {0} / {1}" },
            { Str.ChooseOne, "1つ選択" },
            { Str.ChooseAny, "複数選択可" },
            { Str.AnswerEveryQuestion, "すべての質問に答えると送信できます" },
        };

        public static IReadOnlyDictionary<Str, string> Of(Language language) => language == Language.Ja ? Ja : En;

        public static string Get(Str key, Language language)
        {
            string text;
            if (Of(language).TryGetValue(key, out text)) return text;
            return En.TryGetValue(key, out text) ? text : key.ToString();
        }

        public static string Format(Str key, Language language, params object[] args) => string.Format(Get(key, language), args);

        /// The panel's language from a system language name (`Japanese` → Japanese; else English):
        /// the Editor passes `Application.systemLanguage.ToString()`.
        public static Language FromSystemLanguage(string name) =>
            string.Equals(name, "Japanese", StringComparison.OrdinalIgnoreCase) ? Language.Ja : Language.En;
    }
}
