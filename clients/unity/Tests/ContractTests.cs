// The C# side of the protocol against docs/protocol.schema.json, read here on its own. The classes
// and the method table are generated from the schema (Core/Protocol/Generated, scripts/gen-csharp;
// a Rust test fails while they differ from it); this checks what they give the client: every
// request and notification of the schema is one the client sends or takes, typed, or is listed
// below as deliberately unsupported, with the reason — a method added to the schema fails here
// until it is one or the other. And, as a second reading of the schema, every protocol class has
// its definition's members with the same required-ness, every enum its values.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Reflection;
using Codiva.Client;
using Codiva.Json;
using Codiva.Protocol;
using NUnit.Framework;

namespace Codiva.Tests
{
    [TestFixture]
    public class ContractTests
    {
        /// Requests of the schema the client does not send. None: `CodivaClient.Request` sends any
        /// request of the generated table, typed by it (the panel's own calls have wrappers).
        static readonly Dictionary<string, string> UnsupportedRequests = new Dictionary<string, string>();

        /// Notifications of the schema the client does not take: read as `OtherEvent`, their `seq`
        /// still counted (no gap, no resync).
        static readonly Dictionary<string, string> UnsupportedNotifications = new Dictionary<string, string>
        {
            { "session/prStatus", "the panel's sessions run in place, with no branch and no pull request of their own" },
            { "session/resources", "the panel shows no CPU or memory use of agent processes" },
        };

        Dictionary<string, object> schema;
        Dictionary<string, object> defs;

        [SetUp]
        public void Load()
        {
            schema = (Dictionary<string, object>)JsonText.Parse(File.ReadAllText(Paths.Schema));
            defs = (Dictionary<string, object>)schema["$defs"];
        }

        static string SchemaName(Type type)
        {
            if (type == typeof(object)) return null;
            var attribute = (SchemaAttribute)Attribute.GetCustomAttribute(type, typeof(SchemaAttribute));
            Assert.IsNotNull(attribute, type.Name + " has no [Schema]");
            return attribute.Name;
        }

        static string RefName(object node)
        {
            var reference = JsonRead.Str(node, "$ref");
            return reference?.Substring("#/$defs/".Length);
        }

        [Test]
        public void Every_request_of_the_schema_is_sent_typed_or_listed_unsupported()
        {
            var requests = (Dictionary<string, object>)schema["requests"];
            var table = Methods.All.ToDictionary(m => m.Name);
            // The one way the client sends a request: typed by the table's entry.
            var send = typeof(CodivaClient).GetMethods(BindingFlags.Public | BindingFlags.Instance)
                .Where(m => m.Name == "Request" && m.IsGenericMethodDefinition)
                .Select(m => m.GetParameters()[0].ParameterType)
                .Where(t => t.IsGenericType && t.GetGenericTypeDefinition() == typeof(Method<,>));
            Assert.AreEqual(1, send.Count(), "CodivaClient.Request(Method<TParams, TResult>, TParams, …)");
            Assert.Greater(requests.Count, 10);
            foreach (var pair in requests)
            {
                var name = pair.Key;
                if (UnsupportedRequests.ContainsKey(name))
                {
                    Assert.IsFalse(table.ContainsKey(name), name + " is listed unsupported but is in the table");
                    continue;
                }
                IMethod method;
                Assert.IsTrue(table.TryGetValue(name, out method), name + " is neither in Methods nor listed unsupported (run scripts/gen-csharp, or list it with a reason)");
                Assert.AreEqual(RefName(JsonRead.Get(pair.Value, "params")), SchemaName(method.ParamsType), name + " params");
                Assert.AreEqual(RefName(JsonRead.Get(pair.Value, "result")), SchemaName(method.ResultType), name + " result");
            }
            foreach (var name in table.Keys) Assert.IsTrue(requests.ContainsKey(name), name + " is not in the schema");
            foreach (var name in UnsupportedRequests.Keys) Assert.IsTrue(requests.ContainsKey(name), name + " is listed unsupported but is no longer in the schema");
        }

        [Test]
        public void Every_notification_of_the_schema_is_taken_typed_or_listed_unsupported()
        {
            var notifications = (Dictionary<string, object>)schema["notifications"];
            Assert.Greater(notifications.Count, 10);
            foreach (var pair in notifications)
            {
                var name = pair.Key;
                var byStore = Notifications.Taken.Contains(name);
                var byFeed = Codiva.Panel.PanelFeed.Taken.Contains(name);
                var taken = byStore || byFeed;
                var unsupported = UnsupportedNotifications.ContainsKey(name);
                Assert.IsTrue(taken || unsupported, name + " is neither taken (Notifications.Taken, PanelFeed.Taken) nor listed unsupported with a reason");
                Assert.IsFalse(taken && unsupported, name + " is both taken and listed unsupported");
                Type type;
                Assert.IsTrue(Notifications.ParamsTypes.TryGetValue(name, out type), name + " is not in the generated table (run scripts/gen-csharp)");
                Assert.AreEqual(RefName(JsonRead.Get(pair.Value, "params")), SchemaName(type), name + " params");
                var read = Notifications.Read(name, new Dictionary<string, object> { { "seq", 3L } });
                Assert.AreEqual(3L, read.SeqOrZero, name + ": its seq counts");
                if (byStore) Assert.IsNotInstanceOf<OtherEvent>(read, name + " is read typed");
                else Assert.IsInstanceOf<OtherEvent>(read, name + " is passed through the store");
                // The feed reads its notifications as their generated params class.
                if (byFeed) Assert.IsNotNull(Wire.FromJson(type, new Dictionary<string, object> { { "seq", 3L } }), name + " is read typed by the feed");
            }
            foreach (var name in Notifications.Taken.Concat(Codiva.Panel.PanelFeed.Taken)) Assert.IsTrue(notifications.ContainsKey(name), name + " is not in the schema");
            foreach (var name in UnsupportedNotifications.Keys) Assert.IsTrue(notifications.ContainsKey(name), name + " is listed unsupported but is no longer in the schema");
        }

        [Test]
        public void Every_protocol_class_has_the_definitions_members_and_required_ness()
        {
            var classes = typeof(Wire).Assembly.GetTypes()
                .Where(t => Attribute.IsDefined(t, typeof(SchemaAttribute))).ToList();
            Assert.Greater(classes.Count, 40);
            foreach (var type in classes)
            {
                var attribute = (SchemaAttribute)Attribute.GetCustomAttribute(type, typeof(SchemaAttribute));
                Assert.IsTrue(defs.ContainsKey(attribute.Name), type.Name + ": no $defs/" + attribute.Name);
                var shape = Shape(defs[attribute.Name], null, null, type.Name);
                var declared = new Dictionary<string, bool>();
                foreach (var field in Wire.Fields(type))
                {
                    var wire = field.Value;
                    var what = type.Name + "." + field.Key.Name + " (" + wire.Name + ")";
                    Assert.IsTrue(shape.Properties.Contains(wire.Name), what + " is not a member of " + attribute.Name);
                    if (wire.Variants != null)
                    {
                        Assert.IsNotNull(attribute.Tag, what + ": variants of a class with no tag");
                        foreach (var variant in wire.Variants.Split(','))
                            Assert.IsTrue(Shape(defs[attribute.Name], attribute.Tag, variant, what).Properties.Contains(wire.Name), what + " is not a member of the " + variant + " branch");
                        Assert.IsFalse(wire.Required, what + " is required in some branches only");
                        continue;
                    }
                    Assert.IsFalse(declared.ContainsKey(wire.Name), what + " is declared twice");
                    declared[wire.Name] = wire.Required;
                    Assert.AreEqual(shape.Required.Contains(wire.Name), wire.Required, what + " required-ness");
                }
                foreach (var required in shape.Required)
                    Assert.IsTrue(declared.ContainsKey(required), type.Name + " lacks the required member " + required + " of " + attribute.Name);
            }
        }

        [Test]
        public void Every_string_enum_of_the_schema_has_its_values()
        {
            var known = typeof(Known).GetNestedTypes().ToDictionary(t => t.Name);
            var enums = 0;
            foreach (var pair in defs)
            {
                var values = Strings(pair.Value);
                if (values == null) continue;
                enums++;
                Type type;
                Assert.IsTrue(known.TryGetValue(pair.Key, out type), "no Known." + pair.Key);
                var declared = (string[])type.GetField("Values").GetValue(null);
                CollectionAssert.AreEqual(values, declared, "Known." + pair.Key);
                Assert.IsFalse((bool)type.GetMethod("IsKnown").Invoke(null, new object[] { "a value from a newer codiva" }));
            }
            Assert.Greater(enums, 10);
        }

        /// The strings a definition allows, when it allows strings only (`enum`, `const`, unions).
        List<string> Strings(object node)
        {
            var reference = RefName(node);
            if (reference != null) return Strings(defs[reference]);
            if (JsonRead.Get(node, "const") is string value) return new List<string> { value };
            if (JsonRead.Arr(node, "enum") is List<object> list)
                return list.All(v => v is string) ? list.Cast<string>().ToList() : null;
            var branches = JsonRead.Arr(node, "oneOf") ?? JsonRead.Arr(node, "anyOf");
            if (branches == null) return null;
            var all = new List<string>();
            foreach (var branch in branches)
            {
                var some = Strings(branch);
                if (some == null) return null;
                all.AddRange(some);
            }
            return all;
        }

        sealed class ObjectShape
        {
            public readonly HashSet<string> Properties = new HashSet<string>();
            public HashSet<string> Required = new HashSet<string>();
        }

        /// The members of a definition: its own, its $ref's, and those of its `oneOf` branches
        /// (the tagged branch only when a variant is named; otherwise all of them, required when
        /// every branch requires it).
        ObjectShape Shape(object node, string tag, string variant, string what)
        {
            var shape = new ObjectShape();
            var reference = JsonRead.Str(node, "$ref");
            if (reference != null)
            {
                var inner = Shape(defs[reference.Substring("#/$defs/".Length)], null, null, what);
                shape.Properties.UnionWith(inner.Properties);
                shape.Required.UnionWith(inner.Required);
            }
            if (JsonRead.Get(node, "properties") is Dictionary<string, object> properties) shape.Properties.UnionWith(properties.Keys);
            if (JsonRead.Arr(node, "required") is List<object> required) shape.Required.UnionWith(required.Cast<string>());
            var branches = JsonRead.Arr(node, "oneOf") ?? JsonRead.Arr(node, "anyOf");
            if (branches == null) return shape;
            var objects = branches.Where(b => JsonRead.Get(b, "properties") != null || JsonRead.Get(b, "$ref") != null || JsonRead.Get(b, "oneOf") != null).ToList();
            if (variant != null)
            {
                var chosen = objects.Where(b => JsonRead.Str(JsonRead.Get(JsonRead.Get(b, "properties"), tag), "const") == variant).ToList();
                Assert.AreEqual(1, chosen.Count, what + ": one branch with " + tag + " = " + variant);
                var inner = Shape(chosen[0], null, null, what);
                shape.Properties.UnionWith(inner.Properties);
                shape.Required.UnionWith(inner.Required);
                return shape;
            }
            HashSet<string> common = null;
            foreach (var branch in objects)
            {
                var inner = Shape(branch, null, null, what);
                shape.Properties.UnionWith(inner.Properties);
                if (common == null) common = new HashSet<string>(inner.Required);
                else common.IntersectWith(inner.Required);
            }
            if (common != null) shape.Required.UnionWith(common);
            return shape;
        }
    }
}
