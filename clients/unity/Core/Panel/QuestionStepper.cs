// A question prompt answered as a whole: the agent's questions one at a time (next / back), each
// single- or multi-select with a free-text "Other", and one `session/answerQuestion` for all of
// them (docs/serve-api.md: answers keyed by question text; a list for a multi-select question, a
// string otherwise) — or the prompt declined. The Editor binds this and decides nothing.
using System;
using System.Collections.Generic;
using System.Linq;
using Codiva.Protocol;

namespace Codiva.Panel
{
    public sealed class QuestionStepper
    {
        sealed class Choice
        {
            public readonly SortedSet<int> Options = new SortedSet<int>();
            public bool Other;
            public string OtherText = "";
        }

        readonly string sessionId;
        readonly List<Question> questions;
        readonly Choice[] choices;

        public QuestionStepper(string sessionId, Prompt prompt)
        {
            if (prompt == null) throw new ArgumentNullException(nameof(prompt));
            if (prompt.Kind != "question") throw new ArgumentException("not a question prompt: " + prompt.Kind, nameof(prompt));
            this.sessionId = sessionId;
            RequestId = prompt.RequestId;
            questions = prompt.Questions ?? new List<Question>();
            choices = questions.Select(_ => new Choice()).ToArray();
        }

        public string RequestId { get; }
        public int Count => questions.Count;
        /// The question shown (0-based).
        public int Index { get; private set; }
        public Question Current => Count == 0 ? null : questions[Index];
        public bool CanBack => Index > 0;
        /// Next moves on once the question shown is answered.
        public bool CanNext => Index < Count - 1 && IsAnswered(Index);
        public bool IsLast => Index == Count - 1;
        /// Submit only with every question answered.
        public bool CanSubmit => Count > 0 && Enumerable.Range(0, Count).All(IsAnswered);

        public bool Next()
        {
            if (!CanNext) return false;
            Index++;
            return true;
        }

        public bool Back()
        {
            if (!CanBack) return false;
            Index--;
            return true;
        }

        /// Picks option `option` of the question shown: the only answer of a single-select
        /// question (the Other text is no longer chosen); toggled in a multi-select one.
        public void Choose(int option)
        {
            var question = Current;
            if (question == null || option < 0 || option >= question.Options.Count) throw new ArgumentOutOfRangeException(nameof(option));
            var choice = choices[Index];
            if (question.MultiSelect)
            {
                if (!choice.Options.Remove(option)) choice.Options.Add(option);
                return;
            }
            choice.Options.Clear();
            choice.Options.Add(option);
            choice.Other = false;
        }

        public bool IsChosen(int option) => Count > 0 && choices[Index].Options.Contains(option);

        /// Chooses (or, in a multi-select question, toggles) the free-text answer.
        public void ChooseOther()
        {
            if (Current == null) return;
            var choice = choices[Index];
            if (Current.MultiSelect) { choice.Other = !choice.Other; return; }
            choice.Options.Clear();
            choice.Other = true;
        }

        public bool IsOtherChosen => Count > 0 && choices[Index].Other;
        public string OtherText => Count == 0 ? "" : choices[Index].OtherText;

        /// The free text of the question shown; typing text chooses Other (and, in a
        /// single-select question, unchooses the option).
        public void SetOtherText(string text)
        {
            if (Current == null) return;
            var choice = choices[Index];
            choice.OtherText = text ?? "";
            if (choice.OtherText.Trim().Length == 0) return;
            if (!Current.MultiSelect) choice.Options.Clear();
            choice.Other = true;
        }

        public bool IsAnswered(int index)
        {
            var choice = choices[index];
            return choice.Options.Count > 0 || (choice.Other && choice.OtherText.Trim().Length > 0);
        }

        /// The answer of question `index` as the protocol takes it: a label or free text, or the
        /// labels (and free text) of a multi-select question; null while unanswered.
        public object AnswerOf(int index)
        {
            if (!IsAnswered(index)) return null;
            var question = questions[index];
            var choice = choices[index];
            var picked = choice.Options.Select(o => question.Options[o].Label).ToList();
            if (choice.Other && choice.OtherText.Trim().Length > 0) picked.Add(choice.OtherText.Trim());
            if (question.MultiSelect) return picked;
            return picked[0];
        }

        /// The `session/answerQuestion` params for every answer; null while one is missing.
        public QuestionParams Submit()
        {
            if (!CanSubmit) return null;
            var answers = new Dictionary<string, object>();
            for (var i = 0; i < Count; i++) answers[questions[i].QuestionValue] = AnswerOf(i);
            return new QuestionParams { SessionId = sessionId, RequestId = RequestId, Answers = answers };
        }

        /// The prompt declined (the model sees a failed tool call with `message`).
        public QuestionParams Decline(string message = null) =>
            new QuestionParams { SessionId = sessionId, RequestId = RequestId, Decline = true, Message = message };

        /// The stepper's line above the question: "Question 2 of 3" and how to answer it.
        public string Heading(Language language)
        {
            if (Current == null) return "";
            return Strings.Format(Str.QuestionOf, language, Index + 1, Count) + " · "
                + Strings.Get(Current.MultiSelect ? Str.ChooseAny : Str.ChooseOne, language);
        }
    }
}
