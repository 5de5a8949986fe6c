// The dockable panel: a view over Core's state, nothing more. Every decision — what the
// conversation shows and folds, what a permission card offers, what a question answers, the
// status bar, the pickers, login, history, notifications, the context chips, asset links, the
// turn-end note — is Core's (`Core/Panel`, `Core/Unity`, tested under Mono); this file binds it to
// UI Toolkit elements and sends the user's choices back through `PanelActions` / the client. Every
// text from outside reaches a label as Core's rich text (its one escape chokepoint, `RichText`).
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Codiva.Client;
using Codiva.Ops;
using Codiva.Panel;
using Codiva.Protocol;
using Codiva.Unity;
using UnityEditor;
using UnityEngine;
using UnityEngine.UIElements;
using UnityEngine.UIElements.Experimental;

namespace Codiva.Editor
{
    public sealed partial class CodivaWindow : EditorWindow
    {
        string selected;
        readonly List<ContextChip> chips = new List<ContextChip>();
        readonly ImageAttachments images = new ImageAttachments();
        // What the user opened or closed, by session and item (kept across redraws and sessions),
        // and each session's drawn part of its conversation (the render cap).
        readonly ExpandMemory expand = new ExpandMemory();
        readonly Dictionary<string, TranscriptWindow> transcripts = new Dictionary<string, TranscriptWindow>();
        readonly Dictionary<string, Texture2D> textures = new Dictionary<string, Texture2D>();
        // One stepper per open question prompt, kept across refreshes (by request id).
        readonly Dictionary<string, QuestionStepper> steppers = new Dictionary<string, QuestionStepper>();
        readonly Dictionary<string, TurnNote> notes = new Dictionary<string, TurnNote>();
        readonly Notifier notifier = new Notifier();
        readonly StreamBatcher batcher = new StreamBatcher();
        SlashCompletion slash = new SlashCompletion(new List<CommandInfo>());
        PanelFeed feed;
        PanelActions actions;
        bool showHistory;

        ListView sessionList;
        ScrollView conversation;
        Label connection, inbox, statusBar, turnNote, streaming;
        VisualElement pickers, prompts, sends, chipBar, mcpList, todos, slashList, loginPane, historyPane, main;
        TextField composer;

        static Language Lang => Strings.FromSystemLanguage(Application.systemLanguage.ToString());

        [MenuItem("Window/codiva")]
        public static void Open() => GetWindow<CodivaWindow>("codiva");

        void CreateGUI()
        {
            var client = CodivaHost.Client;
            var lang = Lang;
            actions = new PanelActions(client);
            feed = new PanelFeed(client, CodivaHost.Dispatcher);
            feed.LoginProgress += OnLoginProgress;

            var toolbar = Row();
            connection = new Label();
            inbox = new Label();
            toolbar.Add(connection);
            toolbar.Add(inbox);
            toolbar.Add(new Button(NewSession) { text = Strings.Get(Str.NewSession, lang) });
            toolbar.Add(new Button(() => { showHistory = !showHistory; Refresh(); }) { text = Strings.Get(Str.History, lang) });
            rootVisualElement.Add(toolbar);

            var split = new TwoPaneSplitView(0, 220, TwoPaneSplitViewOrientation.Horizontal);
            sessionList = new ListView { makeItem = () => new Label(), selectionType = SelectionType.Single };
            sessionList.bindItem = (element, i) => ((Label)element).text = RichText.Escape(Presentation.RowText(client.Store[(string)sessionList.itemsSource[i]]?.Row));
            sessionList.selectionChanged += items => Select(items.FirstOrDefault() as string);
            split.Add(sessionList);

            var right = new VisualElement { style = { flexGrow = 1 } };
            historyPane = new ScrollView { style = { flexGrow = 1 } };
            main = new VisualElement { style = { flexGrow = 1 } };
            pickers = Row();
            statusBar = new Label();
            loginPane = new VisualElement { style = { flexShrink = 0 } };
            mcpList = new VisualElement { style = { flexShrink = 0 } };
            conversation = new ScrollView { style = { flexGrow = 1 } };
            streaming = new Label { style = { whiteSpace = WhiteSpace.Normal } };
            todos = new VisualElement { style = { flexShrink = 0 } };
            turnNote = new Label { style = { whiteSpace = WhiteSpace.Normal } };
            prompts = new VisualElement { style = { flexShrink = 0 } };
            sends = new VisualElement { style = { flexShrink = 0 } };
            chipBar = Row();
            chipBar.style.flexWrap = Wrap.Wrap;
            composer = new TextField { multiline = true, style = { minHeight = 48, flexShrink = 0 } };
            composer.RegisterValueChangedCallback(e => { slash.Update(e.newValue); ShowSlash(); });
            // Before the text field sees the key (trickle down): Core says what it does.
            composer.RegisterCallback<KeyDownEvent>(e =>
            {
                string completed;
                // While an IME composes, its keys are its own (Enter confirms the conversion).
                var action = ImeComposition.Press(slash, ComposerKeys.FromUnityKeyCode((int)e.keyCode), e.shiftKey, composer.value, Input.compositionString, out completed);
                if (action == ComposerAction.None) return;
                e.StopPropagation();
                e.PreventDefault();
                if (completed != null) composer.value = completed;
                if (action == ComposerAction.Send) Send();
                ShowSlash();
            }, TrickleDown.TrickleDown);
            slashList = new VisualElement { style = { flexShrink = 0 } };
            var buttons = Row();
            buttons.Add(new Button(Send) { text = Strings.Get(Str.Send, lang) });
            buttons.Add(new Button(() => { if (selected != null) client.Interrupt(selected); }) { text = Strings.Get(Str.Stop, lang) });
            buttons.Add(new Button(() => Attach(SelectionChip.Of(UnitySelection.Active()))) { text = Strings.Get(Str.AttachSelection, lang) });
            buttons.Add(new Button(() => Attach(SceneChip.Of(new UnityActiveScene()))) { text = Strings.Get(Str.AttachScene, lang) });
            buttons.Add(new Button(() => Attach(CodivaHost.Console.Chip())) { text = Strings.Get(Str.AttachConsole, lang) });
            buttons.Add(new Button(AttachImage) { text = Strings.Get(Str.AttachImage, lang) });
            buttons.Add(new Button(PasteImage) { text = Strings.Get(Str.PasteImage, lang) });
            buttons.Add(new Button(DropPin) { text = Strings.Get(Str.DropPin, lang) });
            buttons.Add(new Button(() => CodivaHost.Markers.Clear()) { text = Strings.Get(Str.ClearMarkers, lang) });
            var sketch = new Toggle(RichText.Escape(Strings.Get(Str.Sketch, lang))) { value = MarkerOverlay.Sketching };
            sketch.RegisterValueChangedCallback(e => MarkerOverlay.Sketching = e.newValue);
            buttons.Add(sketch);
            main.Add(Settings(lang));
            foreach (var element in new VisualElement[] { pickers, statusBar, loginPane, mcpList, conversation, streaming, todos, turnNote, prompts, sends, chipBar, slashList, composer, buttons })
                main.Add(element);
            right.Add(historyPane);
            right.Add(main);
            split.Add(right);
            rootVisualElement.Add(split);
            // Files and Hierarchy objects dropped on the window: images attached, objects as
            // selection chips (DroppedFiles and SelectionChip decide).
            rootVisualElement.RegisterCallback<DragUpdatedEvent>(e => DragAndDrop.visualMode = DragAndDropVisualMode.Copy);
            rootVisualElement.RegisterCallback<DragPerformEvent>(e => Drop());

            client.Store.Changed += OnChanged;
            client.Store.StreamChanged += OnStream;
            client.StateChanged += OnState;
            CodivaHost.Turns.TurnEnded += OnTurnEnded;
            CodivaHost.Sends.Changed += Refresh;
            EditorApplication.update += Tick;
            Refresh();
        }

        void OnDestroy()
        {
            EditorApplication.update -= Tick;
            feed?.Dispose();
            foreach (var texture in textures.Values) DestroyImmediate(texture);
            textures.Clear();
            if (CodivaHost.Turns != null) CodivaHost.Turns.TurnEnded -= OnTurnEnded;
            if (CodivaHost.Sends != null) CodivaHost.Sends.Changed -= Refresh;
            if (CodivaHost.Client == null) return;
            CodivaHost.Client.Store.Changed -= OnChanged;
            CodivaHost.Client.Store.StreamChanged -= OnStream;
            CodivaHost.Client.StateChanged -= OnState;
        }

        void OnFocus() { notifier.SetFocused(true); titleContent = new GUIContent(PanelWords.WindowTitle(notifier.Badge)); }

        void OnLostFocus() => notifier.SetFocused(false);

        void OnState(ConnectionState state) => Refresh();

        void OnTurnEnded(TurnNote note)
        {
            notes[note.SessionId] = note;
            if (note.SessionId == selected) Refresh();
        }

        void OnStream(string sessionId)
        {
            if (sessionId == selected) batcher.Offer(CodivaHost.Client.Store[sessionId].Streaming);
        }

        // The batched stream: the label follows at the batcher's pace, not every delta's.
        void Tick()
        {
            if (batcher.Pump(Environment.TickCount)) streaming.text = batcher.Shown.Length == 0 ? "" : RichText.Escape(batcher.Shown);
        }

        void OnChanged(string sessionId)
        {
            var client = CodivaHost.Client;
            if (sessionId != null)
            {
                var notices = notifier.Observe(sessionId, client.Store[sessionId], Lang);
                foreach (var notice in notices) ShowNotification(new GUIContent(notice.Words));
                // The notifier tells only while the window is not focused; the sound follows it.
                if (notices.Count > 0 && EditorPrefs.GetBool(SoundPref, true)) EditorApplication.Beep();
                titleContent = new GUIContent(PanelWords.WindowTitle(notifier.Badge));
            }
            if (sessionId == null || sessionId == selected) Refresh();
            else { sessionList.RefreshItems(); inbox.text = Strings.Format(Str.InboxCount, Lang, client.Store.InboxCount); }
        }

        void Select(string id)
        {
            selected = id;
            if (id != null) actions.Open(id);
            var view = id == null ? null : CodivaHost.Client.Store[id];
            slash = new SlashCompletion(view?.Agent?.Commands ?? new List<CommandInfo>());
            batcher.Offer(view?.Streaming ?? "");
            Refresh();
        }

        void Refresh()
        {
            var client = CodivaHost.Client;
            if (client == null || conversation == null) return;
            var lang = Lang;
            connection.text = RichText.Escape(PanelWords.Connection(client.State, lang));
            inbox.text = Strings.Format(Str.InboxCount, lang, client.Store.InboxCount);
            sessionList.itemsSource = client.Store.Order.ToList();
            sessionList.RefreshItems();
            historyPane.style.display = showHistory ? DisplayStyle.Flex : DisplayStyle.None;
            main.style.display = showHistory ? DisplayStyle.None : DisplayStyle.Flex;
            if (showHistory) { BindHistory(client, lang); return; }

            foreach (var element in new[] { conversation, prompts, chipBar, mcpList, todos, pickers, loginPane }) element.Clear();
            BindChips();
            BindSends(lang);
            var view = selected == null ? null : client.Store[selected];
            BindLogin(client, view, lang);
            if (view == null) { statusBar.text = ""; turnNote.text = ""; return; }
            var session = selected;
            // The stream's end (its text gone) reaches the label too.
            batcher.Offer(view.Streaming);

            BindPickers(client, view, lang);
            statusBar.text = StatusBar.Of(view, feed.Plan, DateTimeOffset.UtcNow.ToUnixTimeSeconds(), lang).Rich();
            foreach (var line in client.Store.McpOf(session))
            {
                var row = Row();
                var label = new Label(RichText.Escape(line.Text));
                label.AddToClassList("codiva-mcp-" + line.Status);
                row.Add(label);
                if (line.CanReconnect) row.Add(new Button(() => client.ReconnectMcp(session, line.Name)) { text = Strings.Get(Str.Reconnect, lang) });
                mcpList.Add(row);
            }
            // The message being written is the streaming label's (batched), not the list's.
            TranscriptWindow transcript;
            if (!transcripts.TryGetValue(session, out transcript)) transcripts[session] = transcript = new TranscriptWindow();
            var slice = transcript.Apply(Conversation.Build(view, lang, expand.Opened(session), ""));
            if (slice.Hidden > 0)
            {
                var earlier = Row();
                earlier.Add(new Label(slice.HiddenRich(lang)));
                earlier.Add(new Button(() => { transcript.ShowEarlier(); Refresh(); }) { text = Strings.Get(Str.TranscriptShowEarlier, lang) });
                conversation.Add(earlier);
            }
            foreach (var item in slice.Items) conversation.Add(Item(item, lang));
            todos.Add(new Label(TodoList.Heading(view, lang)));
            foreach (var line in TodoList.Lines(view)) todos.Add(new Label(line.Rich));
            TurnNote note;
            turnNote.text = notes.TryGetValue(session, out note) ? note.Rich(lang) ?? "" : "";

            var permission = PermissionCard.Of(session, view, lang);
            if (permission != null) prompts.Add(PermissionCardElement(permission, lang));
            var open = new HashSet<string>(view.Prompts.Select(p => p.RequestId));
            foreach (var gone in steppers.Keys.Where(id => !open.Contains(id)).ToList()) steppers.Remove(gone);
            foreach (var prompt in view.Prompts.Where(p => p.Kind == Known.Prompt.Question))
            {
                QuestionStepper stepper;
                if (!steppers.TryGetValue(prompt.RequestId, out stepper))
                    steppers[prompt.RequestId] = stepper = new QuestionStepper(session, prompt);
                var card = new VisualElement();
                QuestionCard(card, stepper);
                prompts.Add(card);
            }
        }

        // One conversation item: a label of its rich text (asset paths as links that open the
        // asset), a foldout for tool calls, groups and thinking.
        VisualElement Item(ConversationItem item, Language lang)
        {
            var linked = AssetLinks.ForItem(item, CodivaHost.Assets);
            var label = new Label(linked.Rich) { style = { whiteSpace = WhiteSpace.Normal } };
            label.RegisterCallback<PointerDownLinkTagEvent>(e =>
            {
                var link = AssetLinks.Of(linked, e.linkID);
                if (link != null) UnityAssetIndex.Open(link);
            });
            label.AddToClassList("codiva-item-" + item.Kind.ToString().ToLowerInvariant());
            if (item.Kind == ItemKind.ToolGroup)
            {
                var group = new Foldout { text = item.Rich, value = false };
                var session = selected;
                group.RegisterValueChangedCallback(e => { if (e.newValue) { expand.Set(session, item.Key, null, true); Refresh(); } });
                return group;
            }
            if (item.Kind == ItemKind.Tool)
            {
                var session = selected;
                var tool = new Foldout { text = linked.Rich, value = expand.IsOpen(session, item.Key, null, !item.Tool.Completed) };
                tool.RegisterValueChangedCallback(e => expand.Set(session, item.Key, null, e.newValue));
                if (item.Tool.Diff.Count > 0) tool.Add(new Label(LineDiff.Rich(item.Tool.Diff, lang)) { style = { whiteSpace = WhiteSpace.Normal } });
                if (!string.IsNullOrEmpty(item.Tool.Output)) tool.Add(new Label(RichText.Escape(item.Tool.Output)) { style = { whiteSpace = WhiteSpace.Normal } });
                foreach (var image in CodivaHost.ToolImages.Of(item.Tool.ToolUseId))
                    tool.Add(new Image { image = Texture(image.Path), style = { width = image.ThumbWidth, height = image.ThumbHeight } });
                return tool;
            }
            if (item.Kind == ItemKind.Thinking)
            {
                var session = selected;
                var thinking = new Foldout { text = item.Rich, value = expand.IsOpen(session, item.Key, null, false) };
                thinking.RegisterValueChangedCallback(e => expand.Set(session, item.Key, null, e.newValue));
                thinking.Add(new Label(item.Detail ?? "") { style = { whiteSpace = WhiteSpace.Normal } });
                return thinking;
            }
            return label;
        }

        // One texture per kept image file, made once.
        Texture2D Texture(string path)
        {
            Texture2D texture;
            if (textures.TryGetValue(path, out texture)) return texture;
            texture = new Texture2D(2, 2);
            texture.LoadImage(File.ReadAllBytes(path));
            return textures[path] = texture;
        }

        // The permission card: allow once, each always-allow scope the agent offers, deny with the
        // reason typed, deny and stop; "N more waiting".
        VisualElement PermissionCardElement(PermissionCard card, Language lang)
        {
            var element = new VisualElement();
            element.Add(new Label(card.RichHeading(lang)) { style = { whiteSpace = WhiteSpace.Normal } });
            if (card.Diff.Count > 0) element.Add(new Label(LineDiff.Rich(card.Diff, lang)) { style = { whiteSpace = WhiteSpace.Normal } });
            var reason = new TextField { tooltip = Strings.Get(Str.DenyReasonPlaceholder, lang) };
            var row = Row();
            if (card.AllowOnce != null) row.Add(new Button(() => actions.Answer(card.Allow())) { text = RichText.Escape(card.AllowOnce.Words) });
            for (var i = 0; i < card.Always.Count; i++)
            {
                var index = i;
                row.Add(new Button(() => actions.Answer(card.AllowAlways(index))) { text = RichText.Escape(card.Always[i].Words) });
            }
            if (card.Deny != null) row.Add(new Button(() => actions.Answer(card.Refuse(reason.value))) { text = RichText.Escape(card.Deny.Words) });
            if (card.DenyAndStop != null) row.Add(new Button(() => actions.Answer(card.RefuseAndStop(reason.value))) { text = RichText.Escape(card.DenyAndStop.Words) });
            element.Add(row);
            element.Add(reason);
            element.Add(new Label(RichText.Escape(card.MoreWaitingWords(lang))));
            return element;
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
            buttons.Add(new Button(() => { var answer = stepper.Submit(); if (answer != null) actions.Answer(answer); })
                { text = Strings.Get(Str.Submit, lang), tooltip = stepper.CanSubmit ? "" : Strings.Get(Str.AnswerEveryQuestion, lang) });
            buttons[buttons.childCount - 1].SetEnabled(stepper.CanSubmit);
            buttons.Add(new Button(() => actions.Answer(stepper.Decline())) { text = Strings.Get(Str.Skip, lang) });
        }

        static VisualElement Row() => new VisualElement { style = { flexDirection = FlexDirection.Row, flexShrink = 0 } };
    }
}
