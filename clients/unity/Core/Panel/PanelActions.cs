// The panel's requests: what the models decide, sent through CodivaClient's generic request with
// the generated method table and params classes. Each answer or refusal goes back to the model
// that asked (on the dispatcher's thread). The Editor calls these; it builds no params itself.
using System;
using System.Collections.Generic;
using System.Threading.Tasks;
using Codiva.Client;
using Codiva.Protocol;
using Codiva.Rpc;

namespace Codiva.Panel
{
    public sealed class PanelActions
    {
        readonly CodivaClient client;

        public PanelActions(CodivaClient client) { this.client = client; }

        /// A permission card's answer (PermissionCard.Allow / AllowAlways / Refuse / RefuseAndStop).
        public Task<Done> Answer(PermissionParams answer, Action<RpcException> failed = null) =>
            client.Request(Methods.SessionRespondPermission, answer, null, failed);

        /// A question prompt's answers or its decline (QuestionStepper.Submit / Decline).
        public Task<Done> Answer(QuestionParams answer, Action<RpcException> failed = null) =>
            client.Request(Methods.SessionAnswerQuestion, answer, null, failed);

        /// A message with the attached images (taken from `images`: the list is empty after).
        public Task<Done> Send(string sessionId, string text, ImageAttachments images = null, Action<RpcException> failed = null) =>
            client.Request(Methods.SessionSend, new SendParams { SessionId = sessionId, Text = text, Images = images?.Take() }, null, failed);

        public Task<Done> SetModel(ModelParams choice, Action<RpcException> failed = null) =>
            client.Request(Methods.SessionSetModel, choice, null, failed);

        public Task<Done> SetMode(ModeParams choice, Action<RpcException> failed = null) =>
            client.Request(Methods.SessionSetPermissionMode, choice, null, failed);

        /// Null (nothing sent) for an agent that cannot be picked.
        public Task<Done> SetAgent(AgentParams choice, Action<RpcException> failed = null) =>
            choice == null ? null : client.Request(Methods.SessionSetAgent, choice, null, failed);

        /// `agents/list`: every agent codiva knows, with its login check, version and model
        /// aliases (the agent picker, the login models, the model picker before a catalog).
        public Task<AgentsResult> LoadAgents(Action<List<AgentAvailability>> done, Action<RpcException> failed = null) =>
            client.Request(Methods.AgentsList, new NoParams(), result => done(result.Agents ?? new List<AgentAvailability>()), failed);

        /// Starts `login` (`agents/login`): its id or its refusal goes back to it; its progress
        /// comes through PanelFeed.LoginProgress. Null when one runs already.
        public Task<LoginStarted> Login(LoginModel login)
        {
            var start = login.Start();
            return start == null ? null : client.Request(Methods.AgentsLogin, start, login.Started, error => login.Refused(error.Message));
        }

        /// A code or a chosen way (LoginModel.SubmitCode / ChooseMethod); null params send nothing.
        public Task<Done> LoginInput(LoginInputParams input, Action<RpcException> failed = null) =>
            input == null ? null : client.Request(Methods.AgentsLoginInput, input, null, failed);

        public Task<Done> CancelLogin(LoginIdParams cancel, Action<RpcException> failed = null) =>
            cancel == null ? null : client.Request(Methods.AgentsLoginCancel, cancel, null, failed);

        /// Open a session of the history: its view is loaded and kept (CodivaClient.Watch).
        public void Open(string sessionId) => client.Watch(sessionId);

        public Task<SessionResult> Rename(RenameParams rename, Action<RpcException> failed = null) =>
            client.Request(Methods.SessionRename, rename, null, failed);

        /// One step of `flow` (its Begin, then its Confirm): the answer or refusal goes back to it.
        public Task<DiscardOutcome> Discard(DiscardFlow flow, ConfirmParams step) =>
            step == null ? null : client.Request(Methods.SessionDiscard, step, flow.Answered, flow.Refused);

        /// Null params (a row that is not discarded) send nothing.
        public Task<SessionResult> Restore(SessionParams restore, Action<RpcException> failed = null) =>
            restore == null ? null : client.Request(Methods.SessionRestore, restore, null, failed);
    }
}
