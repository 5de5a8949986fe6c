// The server's notifications as the store takes them: each one's params class (generated) is a
// `Sequenced`, its place in the manager's stream. A session's events are all one class,
// `SessionEventParams` (the schema's union tagged by `event`).
namespace Codiva.Protocol
{
    /// What every notification from the manager carries: its place in the stream.
    public abstract class Sequenced
    {
        /// 0 when absent (only start-up warnings and "events were dropped" have none).
        public abstract long SeqOrZero { get; }
    }

    public sealed partial class SessionEventParams : Sequenced
    {
        public override long SeqOrZero => Seq;
    }

    public sealed partial class SessionUpdatedParams : Sequenced
    {
        public override long SeqOrZero => Seq;
    }

    public sealed partial class SessionRemovedParams : Sequenced
    {
        public override long SeqOrZero => Seq;
    }

    public sealed partial class BaseParams : Sequenced
    {
        public override long SeqOrZero => Seq;
    }

    public sealed partial class GroupUpdatedParams : Sequenced
    {
        public override long SeqOrZero => Seq;
    }

    public sealed partial class GroupRemovedParams : Sequenced
    {
        public override long SeqOrZero => Seq;
    }

    public sealed partial class WarningParams : Sequenced
    {
        public override long SeqOrZero => Seq ?? 0;
    }

    /// A notification this client does not take (kept so its `seq` still counts).
    public sealed class OtherEvent : Sequenced
    {
        public string Method;
        public object Params;
        public long Seq;
        public override long SeqOrZero => Seq;
    }
}
