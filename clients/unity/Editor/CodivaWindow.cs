// The dockable panel: a view over Core's state, nothing more. Every decision (what a card says,
// which options a prompt offers, what context is attached) is Core's; this file binds it to
// UI Toolkit elements and sends the user's choices back through the client. Every text from
// outside reaches a rich-text label through Core's chokepoint (`RichText.Escape`, or
// `RichText.FromMarkdown` for the agent's replies); question prompts are `QuestionStepper`s.
using System.Collections.Generic;
using System.Linq;
using Codiva.Client;
using Codiva.Ops;
using Codiva.Panel;
using Codiva.Protocol;
using UnityEditor;
using UnityEngine;
using UnityEngine.UIElements;

namespace Codiva.Editor
{
    public sealed class CodivaWindow : EditorWindow
    {
        string selected;
        readonly List<ContextChip> chips = new List<ContextChip>();
        ListView sessionList;
        ScrollView conversation;
        Label streaming, inbox, connection;
        VisualElement prompts, chipBar, mcpList;
        TextField composer;
        // One stepper per open question prompt, kept across refreshes (by request id).
        readonly Dictionary<string, QuestionStepper> steppers = new Dictionary<string, QuestionStepper>();
        static Language Lang => Strings.FromSystemLanguage(Application.systemLanguage.ToString());

        [MenuItem("Window/codiva")]
        public static void Open() => GetWindow<CodivaWindow>("codiva");

        void CreateGUI()
        {
            var client = CodivaHost.Client;
            var toolbar = new VisualElement { style = { flexDirection = FlexDirection.Row, flexShrink = 0 } };
            connection = new Label();
            inbox = new Label();
            toolbar.Add(connection);
            toolbar.Add(inbox);
            toolbar.Add(new Button(NewSession) { text = "New session" });
            rootVisualElement.Add(toolbar);

            var split = new TwoPaneSplitView(0, 220, TwoPaneSplitViewOrientation.Horizontal);
            sessionList = new ListView { makeItem = () => new Label(), selectionType = SelectionType.Single };
            sessionList.bindItem = (element, i) => ((Label)element).text = RichText.Escape(Presentation.RowText(client.Store[(string)sessionList.itemsSource[i]]?.Row));
            sessionList.selectionChanged += items => Select(items.FirstOrDefault() as string);
            split.Add(sessionList);

            var right = new VisualElement { style = { flexGrow = 1 } };
            conversation = new ScrollView { style = { flexGrow = 1 } };
            streaming = new Label { style = { whiteSpace = WhiteSpace.Normal } };
            prompts = new VisualElement { style = { flexShrink = 0 } };
            mcpList = new VisualElement { style = { flexShrink = 0 } };
            chipBar = new VisualElement { style = { flexDirection = FlexDirection.Row, flexWrap = Wrap.Wrap, flexShrink = 0 } };
            composer = new TextField { multiline = true, style = { minHeight = 48, flexShrink = 0 } };
            var actions = new VisualElement { style = { flexDirection = FlexDirection.Row, flexShrink = 0 } };
            actions.Add(new Button(Send) { text = "Send" });
            actions.Add(new Button(() => { if (selected != null) client.Interrupt(selected); }) { text = "Stop" });
            actions.Add(new Button(AttachSelection) { text = "+ Selection" });
            actions.Add(new Button(AttachConsole) { text = "+ Console errors" });
            right.Add(mcpList);
            right.Add(conversation);
            right.Add(streaming);
            right.Add(prompts);
            right.Add(chipBar);
            right.Add(composer);
            right.Add(actions);
            split.Add(right);
            rootVisualElement.Add(split);

            client.Store.Changed += OnChanged;
            client.Store.StreamChanged += OnStream;
            client.StateChanged += OnState;
            Refresh();
        }

        void OnState(ConnectionState state) => Refresh();

        void OnStream(string sessionId)
        {
            if (sessionId == selected) streaming.text = RichText.FromMarkdown(Presentation.Clip(CodivaHost.Client.Store[sessionId].Streaming));
        }

        void OnDestroy()
        {
            if (CodivaHost.Client == null) return;
            CodivaHost.Client.Store.Changed -= OnChanged;
            CodivaHost.Client.Store.StreamChanged -= OnStream;
            CodivaHost.Client.StateChanged -= OnState;
        }

        void OnChanged(string sessionId)
        {
            if (sessionId == null || sessionId == selected) Refresh();
            else { sessionList.RefreshItems(); inbox.text = "Inbox: " + CodivaHost.Client.Store.InboxCount; }
        }

        void Select(string id)
        {
            selected = id;
            if (id != null) CodivaHost.Client.Watch(id);
            Refresh();
        }

        void Refresh()
        {
            var client = CodivaHost.Client;
            if (client == null || conversation == null) return;
            connection.text = client.State.ToString();
            inbox.text = "Inbox: " + client.Store.InboxCount;
            sessionList.itemsSource = client.Store.Order.ToList();
            sessionList.RefreshItems();
            conversation.Clear();
            prompts.Clear();
            chipBar.Clear();
            mcpList.Clear();
            foreach (var chip in chips)
                chipBar.Add(new Button(() => { chips.Remove(chip); Refresh(); }) { text = RichText.Escape(chip.Label) + " ×" });
            var view = selected == null ? null : client.Store[selected];
            streaming.text = view == null ? "" : RichText.FromMarkdown(Presentation.Clip(view.Streaming));
            if (view == null) return;
            var session = selected;
            foreach (var line in client.Store.McpOf(session))
            {
                var row = new VisualElement { style = { flexDirection = FlexDirection.Row } };
                var label = new Label(RichText.Escape(line.Text));
                label.AddToClassList("codiva-mcp-" + line.Status);
                row.Add(label);
                if (line.CanReconnect) row.Add(new Button(() => client.ReconnectMcp(session, line.Name)) { text = "Reconnect" });
                mcpList.Add(row);
            }
            foreach (var entry in view.Log)
            {
                var card = Presentation.CardOf(entry);
                var box = new Foldout { text = RichText.Escape(card.Title + (card.State == null ? "" : " [" + card.State + "]")), value = card.Kind != "tool" };
                box.AddToClassList("codiva-card-" + card.Kind);
                var body = card.Kind == "assistant" ? RichText.FromMarkdown(card.Body) : RichText.Escape(card.Body);
                box.Add(new Label(body) { style = { whiteSpace = WhiteSpace.Normal } });
                conversation.Add(box);
            }
            var open = new HashSet<string>(view.Prompts.Select(p => p.RequestId));
            foreach (var gone in steppers.Keys.Where(id => !open.Contains(id)).ToList()) steppers.Remove(gone);
            foreach (var prompt in view.Prompts) prompts.Add(PromptCard(view, prompt));
        }

        VisualElement PromptCard(SessionView view, Prompt prompt)
        {
            var client = CodivaHost.Client;
            var card = new VisualElement();
            var session = selected;
            if (prompt.Kind == "permission")
            {
                card.Add(new Label(RichText.Escape(Presentation.Clip(prompt.Title + " " + (prompt.Description ?? "")))));
                foreach (var option in prompt.Options ?? new List<PermissionOption>())
                    card.Add(new Button(() => client.RespondPermission(session, prompt.RequestId, option.Id)) { text = RichText.Escape(option.Label) });
            }
            else if (prompt.Kind == "question")
            {
                QuestionStepper stepper;
                if (!steppers.TryGetValue(prompt.RequestId, out stepper))
                    steppers[prompt.RequestId] = stepper = new QuestionStepper(session, prompt);
                QuestionCard(card, stepper);
            }
            return card;
        }

        // Binds the stepper: the question shown, its options as toggles, Other with its text
        // field, Back / Next / Submit / Skip. Each change redraws this card from the stepper.
        void QuestionCard(VisualElement card, QuestionStepper stepper)
        {
            var lang = Lang;
            card.Clear();
            var question = stepper.Current;
            if (question != null)
            {
                card.Add(new Label(RichText.Escape(stepper.Heading(lang))));
                card.Add(new Label(RichText.Escape(Presentation.Clip(question.QuestionValue))) { style = { whiteSpace = WhiteSpace.Normal } });
                var toggles = new List<Toggle>();
                for (var i = 0; i < question.Options.Count; i++)
                {
                    var index = i;
                    var option = question.Options[i];
                    var toggle = new Toggle(RichText.Escape(Presentation.Clip(option.Label))) { value = stepper.IsChosen(index), tooltip = option.Description ?? "" };
                    toggle.RegisterValueChangedCallback(_ => { stepper.Choose(index); QuestionCard(card, stepper); });
                    card.Add(toggle);
                    toggles.Add(toggle);
                }
                var other = new Toggle(RichText.Escape(Strings.Get(Str.Other, lang))) { value = stepper.IsOtherChosen };
                other.RegisterValueChangedCallback(_ => { stepper.ChooseOther(); QuestionCard(card, stepper); });
                card.Add(other);
                var otherText = new TextField { value = stepper.OtherText, tooltip = Strings.Get(Str.OtherPlaceholder, lang) };
                // Typing chooses Other (and unchooses a single-select option): the toggles follow
                // the stepper without rebuilding the field being typed in.
                otherText.RegisterValueChangedCallback(e =>
                {
                    stepper.SetOtherText(e.newValue);
                    for (var i = 0; i < toggles.Count; i++) toggles[i].SetValueWithoutNotify(stepper.IsChosen(i));
                    other.SetValueWithoutNotify(stepper.IsOtherChosen);
                    UpdateQuestionButtons(card, stepper);
                });
                card.Add(otherText);
            }
            var buttons = new VisualElement { name = "codiva-question-buttons", style = { flexDirection = FlexDirection.Row } };
            card.Add(buttons);
            UpdateQuestionButtons(card, stepper);
        }

        // The button row alone (redrawn while the user types in Other).
        void UpdateQuestionButtons(VisualElement card, QuestionStepper stepper)
        {
            var client = CodivaHost.Client;
            var lang = Lang;
            var buttons = card.Q<VisualElement>("codiva-question-buttons");
            buttons.Clear();
            buttons.Add(new Button(() => { stepper.Back(); QuestionCard(card, stepper); }) { text = Strings.Get(Str.Back, lang) });
            buttons[buttons.childCount - 1].SetEnabled(stepper.CanBack);
            if (!stepper.IsLast)
            {
                buttons.Add(new Button(() => { stepper.Next(); QuestionCard(card, stepper); }) { text = Strings.Get(Str.Next, lang) });
                buttons[buttons.childCount - 1].SetEnabled(stepper.CanNext);
            }
            buttons.Add(new Button(() => { var answer = stepper.Submit(); if (answer != null) client.AnswerQuestion(answer); })
                { text = Strings.Get(Str.Submit, lang), tooltip = stepper.CanSubmit ? "" : Strings.Get(Str.AnswerEveryQuestion, lang) });
            buttons[buttons.childCount - 1].SetEnabled(stepper.CanSubmit);
            buttons.Add(new Button(() => client.AnswerQuestion(stepper.Decline())) { text = Strings.Get(Str.Skip, lang) });
        }

        // The active GameObject with its path, components and Transform (Core's SelectionChip).
        void AttachSelection()
        {
            var chip = SelectionChip.Of(UnitySelection.Active());
            if (chip != null) chips.Add(chip);
            Refresh();
        }

        void AttachConsole()
        {
            var chip = CodivaHost.ConsoleErrors.Chip();
            if (chip != null) chips.Add(chip);
            Refresh();
        }

        void Send()
        {
            var text = ContextBlock.Attach(composer.value, chips);
            if (selected != null) CodivaHost.Client.Send(selected, text);
            composer.value = "";
            chips.Clear();
            Refresh();
        }

        void NewSession()
        {
            var text = ContextBlock.Attach(composer.value, chips);
            CodivaHost.Client.CreateSession(PanelSession.Create(text, CodivaHost.ProjectDir, CodivaHost.Ops), result => Select(result.Session.Id));
            composer.value = "";
            chips.Clear();
        }
    }
}
