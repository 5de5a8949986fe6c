using System.Collections.Generic;
using Codiva.Json;
using Codiva.Protocol;
using NUnit.Framework;

namespace Codiva.Tests
{
    [TestFixture]
    public class JsonTests
    {
        [Test]
        public void Reads_every_kind_of_value()
        {
            var value = JsonText.Parse(" {\"a\": [1, -2.5, 1e3, true, false, null], \"b\": {\"c\": \"d\"}, \"big\": 12345678901234} ");
            var a = JsonRead.Arr(value, "a");
            Assert.AreEqual(new object[] { 1L, -2.5, 1000.0, true, false, null }, a.ToArray());
            Assert.AreEqual("d", JsonRead.Str(JsonRead.Get(value, "b"), "c"));
            Assert.AreEqual(12345678901234L, JsonRead.Long(value, "big"));
        }

        [Test]
        public void Strings_round_trip_with_escapes_cjk_emoji_and_control_characters()
        {
            var text = "quote\" backslash\\ tab\t nl\n esc\u001b[2J こんにちは 👋 \u2028";
            var written = JsonText.Write(new Dictionary<string, object> { { "t", text } });
            Assert.IsFalse(written.Contains("\n"), "one line");
            Assert.IsFalse(written.Contains("\u001b"), "control characters escaped");
            Assert.AreEqual(text, JsonRead.Str(JsonText.Parse(written), "t"));
            Assert.AreEqual("👋", JsonText.Parse("\"\\ud83d\\udc4b\""));
        }

        [Test]
        public void Numbers_are_written_invariantly()
        {
            Assert.AreEqual("[0.5,-3,1E+21]", JsonText.Write(new List<object> { 0.5, -3L, 1e21 }));
        }

        [TestCase("")]
        [TestCase("{")]
        [TestCase("[1,]")]
        [TestCase("{\"a\" 1}")]
        [TestCase("\"unterminated")]
        [TestCase("\"bad \\x escape\"")]
        [TestCase("tru")]
        [TestCase("01")]
        [TestCase("1e999")]
        [TestCase("{\"a\":-1e400}")]
        [TestCase("{} trailing")]
        [TestCase("\"raw \u0001 control\"")]
        public void Malformed_input_is_an_error(string text)
        {
            Assert.Throws<JsonException>(() => JsonText.Parse(text));
        }

        [Test]
        public void Typed_objects_round_trip_and_unknown_members_are_ignored()
        {
            var parameters = new PermissionParams { SessionId = "s", RequestId = "r", Option = "allow_once" };
            Assert.AreEqual("{\"session_id\":\"s\",\"request_id\":\"r\",\"option\":\"allow_once\"}", JsonText.Write(Wire.ToJson(parameters)));
            var row = Wire.FromJson<SessionInfo>(JsonText.Parse("{\"id\":\"x\",\"status\":\"a_status_of_tomorrow\",\"todos\":{\"done\":1,\"total\":2},\"new_field\":[1]}"));
            Assert.AreEqual("x", row.Id);
            Assert.AreEqual("a_status_of_tomorrow", row.Status);
            Assert.AreEqual(2, row.Todos.Total);
        }

        /// A member that two branches of a union type differently (`usage`: a session's
        /// `UsageView`, the plan's `PlanUsage`) is read and written for its own branch only.
        [Test]
        public void A_member_typed_per_branch_is_read_and_written_for_its_branch()
        {
            var usage = Wire.FromJson<SessionEventParams>(JsonText.Parse(
                "{\"seq\":1,\"session_id\":\"s\",\"event\":\"usage\",\"usage\":{\"tokens\":{\"input\":7,\"output\":1,\"cache_read\":0,\"cache_creation\":0},\"context_used\":9}}"));
            Assert.AreEqual(7L, usage.Usage.Tokens.Input);
            Assert.IsNull(usage.PlanUsageUsage);
            var plan = Wire.FromJson<SessionEventParams>(JsonText.Parse(
                "{\"seq\":2,\"session_id\":\"s\",\"event\":\"plan_usage\",\"usage\":{\"windows\":[]}}"));
            Assert.IsNull(plan.Usage);
            Assert.AreEqual(0, plan.PlanUsageUsage.Windows.Count);
            Assert.AreEqual("{\"seq\":2,\"session_id\":\"s\",\"event\":\"plan_usage\",\"usage\":{\"windows\":[]}}", JsonText.Write(Wire.ToJson(plan)));
            plan.Usage = new UsageView();
            Assert.AreEqual("{\"seq\":2,\"session_id\":\"s\",\"event\":\"plan_usage\",\"usage\":{\"windows\":[]}}", JsonText.Write(Wire.ToJson(plan)), "the other branch's member is not written");
        }
    }
}
