import Foundation

/// Independent readers of ISO-BMFF files: our own top-level box walk, AtomicParsley, mkvmerge and a
/// full GStreamer decode. None of them shares code with FFmpeg's mov demuxer.
public enum ContainerOracles {
    /// The top-level boxes of an MP4 file, in file order (type, size), read straight from the bytes.
    public static func topLevelBoxes(_ path: String) throws -> [(type: String, size: Int)] {
        let bytes = try fileBytes(path)
        var boxes: [(String, Int)] = []
        var offset = 0
        while offset + 8 <= bytes.count {
            var size = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            if size == 1, offset + 16 <= bytes.count {
                size = bytes[offset + 8..<offset + 16].reduce(0) { $0 << 8 | Int($1) }
            } else if size == 0 {
                size = bytes.count - offset
            }
            guard size >= 8 else { throw TestFailure("box '\(type)' at \(offset) has size \(size)") }
            boxes.append((type, size))
            offset += size
        }
        guard offset == bytes.count else { throw TestFailure("\(path): trailing \(bytes.count - offset) bytes after the last box") }
        return boxes
    }

    /// `AtomicParsley FILE -T`: exits non-zero on a broken atom tree. Returns its listing.
    public static func atomicParsley(_ path: String) throws -> String {
        let result = try Subprocess.run("AtomicParsley", [path, "-T"])
        guard result.status == 0, !result.stdoutText.contains("AtomicParsley error") else {
            throw TestFailure("AtomicParsley rejected \(path): \(result.stdoutText) \(result.stderrText)")
        }
        return result.stdoutText
    }

    /// `AtomicParsley FILE -t`: the iTunes tags as it reads them, one `Atom "…" contains: …` line each.
    public static func atomicParsleyTags(_ path: String) throws -> String {
        let result = try Subprocess.run("AtomicParsley", [path, "-t"])
        guard result.status == 0 else { throw TestFailure("AtomicParsley -t rejected \(path): \(result.stderrText)") }
        return result.stdoutText
    }

    /// `mkvmerge --identify --identification-format json`: its track list (codec names, types).
    public static func mkvmergeTracks(_ path: String) throws -> [[String: Any]] {
        let result = try Subprocess.run("mkvmerge", ["--identify", "--identification-format", "json", path])
        guard result.status == 0,
              let json = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any],
              (json["container"] as? [String: Any])?["recognized"] as? Bool == true else {
            throw TestFailure("mkvmerge did not recognise \(path): \(result.stdoutText) \(result.stderrText)")
        }
        return json["tracks"] as? [[String: Any]] ?? []
    }

    /// Decodes a track with GStreamer (`qtdemux`, then `aacparse ! faad` for audio or
    /// `h264parse ! openh264dec` for video) into raw bytes — S16LE for audio, I420 for video — and
    /// returns how many bytes came out. GStreamer can exit 0 after an error, so its output is checked too.
    public static func gstreamerDecodedBytes(_ path: String, video: Bool, in folder: TemporaryDirectory) throws -> Int {
        let raw = folder.file(video ? "gst-video.raw" : "gst-audio.raw")
        let branch = video
            ? "d.video_0 ! queue ! h264parse ! openh264dec ! videoconvert ! video/x-raw,format=I420 ! filesink location=\(raw)"
            : "d.audio_0 ! queue ! aacparse ! faad ! audioconvert ! audio/x-raw,format=S16LE ! filesink location=\(raw)"
        let pipeline = "filesrc location=\(path) ! qtdemux name=d \(branch)"
        let result = try Subprocess.run("gst-launch-1.0", ["-q"] + pipeline.split(separator: " ").map(String.init))
        let text = result.stdoutText + result.stderrText
        guard result.status == 0, !text.contains("ERROR"), !text.contains("WARNING") else {
            throw TestFailure("GStreamer failed on \(path): \(text)")
        }
        return fileSize(raw)
    }

    /// Bytes GStreamer decodes from any input it recognises (`uridecodebin`: tsdemux for MPEG-TS,
    /// hlsdemux for an HLS playlist…): I420 video and mono S16 audio; 0 for a kind it has none of.
    public static func gstreamerDecodedStreams(_ path: String, video: Bool = true, in folder: TemporaryDirectory) throws -> (video: Int, audio: Int) {
        let pictures = folder.file("gst-\(UUID().uuidString).yuv"), sound = folder.file("gst-\(UUID().uuidString).pcm")
        let videoBranch = video ? ["d.", "!", "queue", "!", "videoconvert", "!", "video/x-raw,format=I420", "!", "filesink", "location=\(pictures)"] : []
        let result = try Subprocess.run("gst-launch-1.0", ["-q", "uridecodebin", "uri=file://\(path)", "name=d"] + videoBranch + [
            "d.", "!", "queue", "!", "audioconvert", "!", "audio/x-raw,format=S16LE,channels=1", "!", "filesink", "location=\(sound)"])
        guard result.status == 0, !result.stderrText.contains("ERROR") else { throw TestFailure("GStreamer: \(result.stderrText)") }
        return (video ? fileSize(pictures) : 0, fileSize(sound))
    }
}
