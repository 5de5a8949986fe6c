// Images attached to the next message, kept within what the agent takes. Each limit and where it
// comes from:
// - type: PNG, JPEG, GIF or WebP, and the bytes must start as that type does — what codiva checks
//   before anything is sent (docs/serve-api.md, `session/create`'s `images`;
//   crates/codiva-core/src/claude/accepts.rs `check_image`), so the type is read from the bytes
//   here, never from a file name;
// - size: at most 5 MB of base64 per image (5,242,880 bytes) — the Anthropic Messages API's
//   per-image limit ("API: Maximum 5MB per image", https://docs.claude.com/en/docs/vision, FAQ);
// - dimensions: at most 8000 × 8000 px ("If you submit an image larger than 8000x8000 px, it will
//   be rejected", same page, "Basics and Limits");
// - count: at most 20 per message (the same section: with more than 20 images in one request
//   the dimension limit drops to 2000 × 2000 px; 20 keeps the 8000 px rule the one that holds),
//   and at most 32 MB of base64 in all (the page's request size limit for standard endpoints:
//   the message itself cannot be larger than the request that carries it).
// Capturing, pasting and resizing an image are the Editor's (Unity's texture API); this decides
// what is accepted and builds the `images` of `session/send`.
using System;
using System.Collections.Generic;
using System.Linq;
using Codiva.Protocol;

namespace Codiva.Panel
{
    public enum AttachmentRefusal { None, Empty, UnsupportedType, TooLarge, TooManyPixels, TooMany }

    public sealed class Attachment
    {
        /// The name shown on the chip (a file name, `Scene view`, …; plain).
        public string Name;
        public string MediaType;
        public int Width, Height;
        public ImageInput Input;
    }

    public sealed class ImageAttachments
    {
        public const int MaxCount = 20;
        public const int MaxBase64Bytes = 5 * 1024 * 1024;
        public const long MaxTotalBase64Bytes = 32L * 1024 * 1024;
        public const int MaxSide = 8000;

        readonly List<Attachment> items = new List<Attachment>();
        public IReadOnlyList<Attachment> Items => items;

        /// Why the last `Add` was refused, in words ("" when it was not).
        public string LastRefusal { get; private set; } = "";

        /// Adds an image from its bytes; the refusal (None: added). `name` is for the chip.
        public AttachmentRefusal Add(string name, byte[] bytes, Language language)
        {
            var refusal = Check(name, bytes, language, out var attachment);
            if (refusal == AttachmentRefusal.None) items.Add(attachment);
            return refusal;
        }

        AttachmentRefusal Check(string name, byte[] bytes, Language language, out Attachment attachment)
        {
            attachment = null;
            name = Words.OneLine(string.IsNullOrEmpty(name) ? "image" : name, 60);
            if (items.Count >= MaxCount) return Refuse(AttachmentRefusal.TooMany, Strings.Format(Str.ImageTooMany, language, MaxCount));
            if (bytes == null || bytes.Length == 0) return Refuse(AttachmentRefusal.Empty, Strings.Format(Str.ImageEmpty, language, name));
            var type = Sniff(bytes);
            if (type == null) return Refuse(AttachmentRefusal.UnsupportedType, Strings.Format(Str.ImageUnsupportedType, language, name));
            var base64 = Base64Length(bytes.Length);
            if (base64 > MaxBase64Bytes || items.Sum(i => (long)i.Input.Data.Length) + base64 > MaxTotalBase64Bytes)
                return Refuse(AttachmentRefusal.TooLarge, Strings.Format(Str.ImageTooLarge, language, name, MaxBase64Bytes / (1024 * 1024)));
            int width, height;
            if (!Dimensions(bytes, out width, out height))
                return Refuse(AttachmentRefusal.UnsupportedType, Strings.Format(Str.ImageUnsupportedType, language, name));
            if (width > MaxSide || height > MaxSide)
                return Refuse(AttachmentRefusal.TooManyPixels, Strings.Format(Str.ImageTooManyPixels, language, name, MaxSide));
            LastRefusal = "";
            attachment = new Attachment { Name = name, MediaType = type, Width = width, Height = height, Input = ImageInput.FromBytes(type, bytes) };
            return AttachmentRefusal.None;
        }

        AttachmentRefusal Refuse(AttachmentRefusal refusal, string words)
        {
            LastRefusal = words;
            return refusal;
        }

        public void Remove(int index)
        {
            if (index >= 0 && index < items.Count) items.RemoveAt(index);
        }

        /// The `images` of the next `session/send` (null with none); the list is then empty.
        public List<ImageInput> Take()
        {
            if (items.Count == 0) return null;
            var images = items.Select(i => i.Input).ToList();
            items.Clear();
            return images;
        }

        static long Base64Length(long bytes) => (bytes + 2) / 3 * 4;

        /// The image type the bytes start with (codiva's `sniff`), or null.
        public static string Sniff(byte[] b)
        {
            if (Starts(b, 0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A)) return "image/png";
            if (Starts(b, 0xFF, 0xD8, 0xFF)) return "image/jpeg";
            if (Starts(b, 0x47, 0x49, 0x46, 0x38, 0x37, 0x61) || Starts(b, 0x47, 0x49, 0x46, 0x38, 0x39, 0x61)) return "image/gif";
            if (b.Length >= 12 && Starts(b, 0x52, 0x49, 0x46, 0x46) && b[8] == 0x57 && b[9] == 0x45 && b[10] == 0x42 && b[11] == 0x50) return "image/webp";
            return null;
        }

        static bool Starts(byte[] b, params int[] prefix)
        {
            if (b.Length < prefix.Length) return false;
            for (var i = 0; i < prefix.Length; i++) if (b[i] != prefix[i]) return false;
            return true;
        }

        /// Width and height from the image's header (PNG IHDR, GIF screen, JPEG SOFn, WebP
        /// VP8/VP8L/VP8X); false when the header cannot be read.
        public static bool Dimensions(byte[] b, out int width, out int height)
        {
            width = height = 0;
            switch (Sniff(b))
            {
                case "image/png":
                    if (b.Length < 24) return false;
                    width = Big32(b, 16);
                    height = Big32(b, 20);
                    return width > 0 && height > 0;
                case "image/gif":
                    if (b.Length < 10) return false;
                    width = b[6] | b[7] << 8;
                    height = b[8] | b[9] << 8;
                    return true;
                case "image/jpeg":
                    return JpegDimensions(b, out width, out height);
                case "image/webp":
                    return WebpDimensions(b, out width, out height);
            }
            return false;
        }

        static int Big32(byte[] b, int at) => (int)Math.Min(int.MaxValue, (uint)(b[at] << 24 | b[at + 1] << 16 | b[at + 2] << 8 | b[at + 3]));

        static bool JpegDimensions(byte[] b, out int width, out int height)
        {
            width = height = 0;
            var at = 2;
            while (at + 4 <= b.Length)
            {
                if (b[at] != 0xFF) return false;
                var marker = b[at + 1];
                if (marker == 0xFF) { at++; continue; }
                if (marker == 0xD8 || (marker >= 0xD0 && marker <= 0xD7) || marker == 0x01) { at += 2; continue; }
                var length = b[at + 2] << 8 | b[at + 3];
                if (length < 2) return false;
                // Start of frame (every SOFn but DHT C4, JPG C8, DAC CC).
                if (marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC)
                {
                    if (at + 9 > b.Length) return false;
                    height = b[at + 5] << 8 | b[at + 6];
                    width = b[at + 7] << 8 | b[at + 8];
                    return true;
                }
                at += 2 + length;
            }
            return false;
        }

        static bool WebpDimensions(byte[] b, out int width, out int height)
        {
            width = height = 0;
            if (b.Length < 30) return false;
            var chunk = System.Text.Encoding.ASCII.GetString(b, 12, 4);
            switch (chunk)
            {
                case "VP8 ":
                    width = (b[26] | b[27] << 8) & 0x3FFF;
                    height = (b[28] | b[29] << 8) & 0x3FFF;
                    return true;
                case "VP8L":
                    width = 1 + ((b[22] << 8 | b[21]) & 0x3FFF);
                    height = 1 + ((b[24] << 10 | b[23] << 2 | b[22] >> 6) & 0x3FFF);
                    return true;
                case "VP8X":
                    width = 1 + (b[24] | b[25] << 8 | b[26] << 16);
                    height = 1 + (b[27] | b[28] << 8 | b[29] << 16);
                    return true;
            }
            return false;
        }
    }
}
