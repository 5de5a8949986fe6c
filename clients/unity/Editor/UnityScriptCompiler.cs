// The script validation gate's compiler in the Editor: Unity's compilation API (`AssemblyBuilder`)
// compiles, for each assembly a staged script belongs to, that assembly's scripts with the staged
// ones in place of those they replace (`ScriptGate.Sources`, tested), with the assembly's own
// references and defines, into a throwaway file. Called off the main thread by `scripts_commit`:
// the build is started on the main thread (the dispatcher) and waited for, at most `Limit`.
// A staged assembly definition is checked by the gate (JSON with a name), not compiled here.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading;
using Codiva.Client;
using Codiva.Ops;
using UnityEditor.Compilation;

namespace Codiva.Editor
{
    public sealed class UnityScriptCompiler : IScriptCompiler
    {
        public static readonly TimeSpan Limit = TimeSpan.FromSeconds(120);
        readonly IDispatcher main;

        public UnityScriptCompiler(IDispatcher main) { this.main = main; }

        public IList<CompileMessage> Compile(string projectDir, IList<StagedScript> scripts)
        {
            var messages = new List<CompileMessage>();
            var output = Path.Combine(Path.GetTempPath(), "codiva-gate-" + Guid.NewGuid().ToString("N").Substring(0, 8));
            Directory.CreateDirectory(output);
            try
            {
                foreach (var group in scripts.Where(s => !s.IsAssemblyDefinition).GroupBy(s => CompilationPipeline.GetAssemblyNameFromScriptPath(s.Target)))
                    messages.AddRange(Build(projectDir, group.Key, group.ToList(), output));
            }
            finally
            {
                try { Directory.Delete(output, true); } catch (IOException) { } catch (UnauthorizedAccessException) { }
            }
            return messages;
        }

        IList<CompileMessage> Build(string projectDir, string assemblyName, IList<StagedScript> staged, string output)
        {
            var done = new ManualResetEventSlim();
            var messages = new List<CompileMessage>();
            main.Post(() =>
            {
                try
                {
                    var assembly = CompilationPipeline.GetAssemblies(AssembliesType.Editor)
                        .FirstOrDefault(a => a.name == assemblyName || a.name + ".dll" == assemblyName);
                    var sources = ScriptGate.Sources(projectDir, assembly?.sourceFiles ?? new string[0], staged);
                    var builder = new AssemblyBuilder(Path.Combine(output, Path.GetFileNameWithoutExtension(assemblyName ?? "Staged") + ".dll"), sources.ToArray())
                    {
                        additionalReferences = assembly?.allReferences ?? new string[0],
                        additionalDefines = assembly?.defines ?? new string[0],
                        referencesOptions = assembly == null ? ReferencesOptions.UseEngineModules : ReferencesOptions.None,
                        flags = AssemblyBuilderFlags.EditorAssembly,
                    };
                    builder.buildFinished += (path, compilerMessages) =>
                    {
                        lock (messages)
                            messages.AddRange(compilerMessages.Select(m => new CompileMessage
                            {
                                File = m.file,
                                Line = m.line,
                                Column = m.column,
                                IsError = m.type == CompilerMessageType.Error,
                                Text = m.message,
                            }));
                        done.Set();
                    };
                    if (!builder.Build())
                    {
                        lock (messages) messages.Add(new CompileMessage { IsError = true, Text = "Unity did not start the compile (is it compiling already?); call the tool again in a moment" });
                        done.Set();
                    }
                }
                catch (Exception error)
                {
                    lock (messages) messages.Add(new CompileMessage { IsError = true, Text = "the compile could not start: " + error.Message });
                    done.Set();
                }
            });
            if (!done.Wait(Limit))
                return new List<CompileMessage> { new CompileMessage { IsError = true, Text = "the compile did not finish within " + Limit.TotalSeconds + " s" } };
            lock (messages) return messages.ToList();
        }
    }
}
