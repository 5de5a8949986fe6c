// What an Ops tool does to the project, for the turn-end note (`Codiva.Unity.TurnScope`): each
// tool says it by the interface it implements; a tool that says nothing is named in the note (the
// safe reading). Tools of the agent itself (Bash, Write, …) are read by Core from their kind.
using Codiva.Protocol;
using Codiva.Unity;

namespace Codiva.Ops
{
    /// A tool whose changes Unity's Undo does not revert (a file written, an asset deleted).
    public interface IChangesOutsideUndo { }

    /// A tool that changes nothing (a query, a screenshot, a job's status).
    public interface IChangesNothing { }

    /// A tool whose every change is recorded in Unity's Undo (`Undo.RegisterCreatedObjectUndo`, …):
    /// the turn's one Undo step reverts it.
    public interface IRevertedByUndo { }

    /// The effects of the Ops server's tools as the agent names them (`mcp__<server>__<tool>`).
    public sealed class OpsToolEffects : IToolEffects
    {
        readonly ToolRegistry registry;
        readonly string prefix;

        public OpsToolEffects(ToolRegistry registry, string serverName = PanelSession.OpsServerName)
        {
            this.registry = registry;
            prefix = "mcp__" + serverName + "__";
        }

        public ToolEffect? Of(LogEntry tool)
        {
            var name = tool.Name;
            if (name == null || !name.StartsWith(prefix, System.StringComparison.Ordinal)) return null;
            var found = registry.Named(name.Substring(prefix.Length));
            if (found is IChangesNothing) return ToolEffect.None;
            if (found is IRevertedByUndo && !(found is IChangesOutsideUndo)) return ToolEffect.Undoable;
            return ToolEffect.OutsideUndo;
        }
    }
}
