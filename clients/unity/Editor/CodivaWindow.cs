// The dockable panel: a view over Core's state, nothing more. Every decision (what a card says,
// which options a prompt offers, what context is attached) is Core's; this file binds it to
// UI Toolkit elements and sends the user's choices back through the client.
using System.Collections.Generic;
using System.Linq;
using Codiva.Client;
using Codiva.Ops;
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
            sessionList.bindItem = (element, i) => ((Label)element).text = Presentation.RowText(client.Store[(string)sessionList.itemsSource[i]]?.Row);
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
            if (sessionId == selected) streaming.text = Presentation.Clip(CodivaHost.Client.Store[sessionId].Streaming);
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
                chipBar.Add(new Button(() => { chips.Remove(chip); Refresh(); }) { text = chip.Label + " ×" });
            var view = selected == null ? null : client.Store[selected];
            streaming.text = view == null ? "" : Presentation.Clip(view.Streaming);
            if (view == null) return;
            var session = selected;
            foreach (var line in client.Store.McpOf(session))
            {
                var row = new VisualElement { style = { flexDirection = FlexDirection.Row } };
                var label = new Label(line.Text);
                label.AddToClassList("codiva-mcp-" + line.Status);
                row.Add(label);
                if (line.CanReconnect) row.Add(new Button(() => client.ReconnectMcp(session, line.Name)) { text = "Reconnect" });
                mcpList.Add(row);
            }
            foreach (var entry in view.Log)
            {
                var card = Presentation.CardOf(entry);
                var box = new Foldout { text = card.Title + (card.State == null ? "" : " [" + card.State + "]"), value = card.Kind != "tool" };
                box.AddToClassList("codiva-card-" + card.Kind);
                box.Add(new Label(card.Body) { style = { whiteSpace = WhiteSpace.Normal } });
                conversation.Add(box);
            }
            foreach (var prompt in view.Prompts) prompts.Add(PromptCard(view, prompt));
        }

        VisualElement PromptCard(SessionView view, Prompt prompt)
        {
            var client = CodivaHost.Client;
            var card = new VisualElement();
            var session = selected;
            if (prompt.Kind == "permission")
            {
                card.Add(new Label(Presentation.Clip(prompt.Title + " " + (prompt.Description ?? ""))));
                foreach (var option in prompt.Options ?? new List<PermissionOption>())
                    card.Add(new Button(() => client.RespondPermission(session, prompt.RequestId, option.Id)) { text = option.Label });
            }
            else if (prompt.Kind == "question")
            {
                foreach (var question in prompt.Questions ?? new List<Question>())
                {
                    card.Add(new Label(Presentation.Clip(question.Text)));
                    foreach (var option in question.Options)
                        card.Add(new Button(() => client.AnswerQuestion(session, prompt.RequestId, new Dictionary<string, object> { { question.Text, option.Label } })) { text = Presentation.Clip(option.Label) });
                }
                card.Add(new Button(() => client.DeclineQuestion(session, prompt.RequestId)) { text = "Skip" });
            }
            return card;
        }

        void AttachSelection()
        {
            foreach (var obj in Selection.objects)
                chips.Add(new ContextChip { Kind = "selection", Label = obj.name, Detail = AssetDatabase.GetAssetPath(obj) });
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
