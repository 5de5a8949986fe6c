// The C# side of the protocol against docs/protocol.schema.json: every method and notification
// the client declares exists there with the same params and result definitions, and every
// protocol class has the definition's member names with the same required-ness.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Codiva.Json;
using Codiva.Protocol;
using NUnit.Framework;

namespace Codiva.Tests
{
    [TestFixture]
    public class ContractTests
    {
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
            var attribute = (SchemaAttribute)Attribute.GetCustomAttribute(type, typeof(SchemaAttribute));
            Assert.IsNotNull(attribute, type.Name + " has no [Schema]");
            return attribute.Name;
        }

        static string RefName(object node)
        {
            var reference = JsonRead.Str(node, "$ref");
            Assert.IsNotNull(reference, "expected a $ref in " + JsonText.Write(node));
            return reference.Substring("#/$defs/".Length);
        }

        [Test]
        public void Every_request_exists_with_the_same_params_and_result()
        {
            var requests = (Dictionary<string, object>)schema["requests"];
            var methods = Methods.All().ToList();
            Assert.Greater(methods.Count, 10);
            foreach (var method in methods)
            {
                Assert.IsTrue(requests.ContainsKey(method.Name), method.Name + " is not in the schema");
                Assert.AreEqual(RefName(JsonRead.Get(requests[method.Name], "params")), SchemaName(method.ParamsType), method.Name + " params");
                Assert.AreEqual(RefName(JsonRead.Get(requests[method.Name], "result")), SchemaName(method.ResultType), method.Name + " result");
            }
        }

        [Test]
        public void Every_notification_exists_with_the_same_params()
        {
            var notifications = (Dictionary<string, object>)schema["notifications"];
            foreach (var pair in Notifications.Types)
            {
                Assert.IsTrue(notifications.ContainsKey(pair.Key), pair.Key + " is not in the schema");
                Assert.AreEqual(RefName(JsonRead.Get(notifications[pair.Key], "params")), SchemaName(pair.Value), pair.Key);
            }
        }

        /// The schema's notifications the panel does not show: read as `OtherEvent` (their `seq`
        /// still counts). A notification added to the schema fails here until it is typed or
        /// listed.
        static readonly string[] PassedThrough = { "agents/loginProgress", "session/planUsage", "session/prStatus", "session/resources" };

        [Test]
        public void Every_notification_of_the_schema_is_typed_or_knowingly_passed_through()
        {
            var notifications = (Dictionary<string, object>)schema["notifications"];
            foreach (var name in notifications.Keys)
                Assert.IsTrue(Notifications.Types.ContainsKey(name) || PassedThrough.Contains(name), name + " is neither typed nor passed through");
            foreach (var name in PassedThrough)
            {
                Assert.IsTrue(notifications.ContainsKey(name), name + " is no longer in the schema");
                Assert.IsInstanceOf<OtherEvent>(Notifications.Read(name, new Dictionary<string, object> { { "seq", 3L } }));
            }
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
                var shape = Shape(defs[attribute.Name], attribute.Tag, attribute.Variant, type.Name);
                var declared = Wire.Fields(type).ToDictionary(f => f.Value.Name, f => f.Value.Required);
                foreach (var member in declared)
                {
                    Assert.IsTrue(shape.Properties.Contains(member.Key), type.Name + "." + member.Key + " is not a member of " + attribute.Name);
                    Assert.AreEqual(shape.Required.Contains(member.Key), member.Value, type.Name + "." + member.Key + " required-ness");
                }
                foreach (var required in shape.Required)
                {
                    if (required == attribute.Tag) continue;
                    Assert.IsTrue(declared.ContainsKey(required), type.Name + " lacks the required member " + required + " of " + attribute.Name);
                }
            }
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
