/// A track that ended before its container said it would: the file was cut (a partial download, a
/// copy that stopped, a recording that was killed). The demuxer delivered every intact packet up to
/// the cut and left out what is missing, including a last packet that is only partly there.
///
/// Packets an edit list leaves out are not missing: the expected count is what the demuxer's index
/// presents, not the sample table's size. Containers without an index say only that the file is
/// cut (`reason`), and how many seconds are missing where they declare a duration. A raw ADTS
/// stream followed by junk is reported the same way (`trailingBytes`): whole up to the junk.
public struct Truncation: Sendable, Equatable, CustomStringConvertible {
    /// The track (container stream index).
    public let track: Int
    /// What `packetsRead` and `packetsExpected` count: packets, or sample frames for PCM (WAV).
    public enum Unit: String, Sendable {
        /// Encoded packets.
        case packets
        /// Sample frames of PCM (a WAV declares its length in bytes, not packets).
        case sampleFrames = "sample frames"
    }

    /// Intact packets (or sample frames) of the track up to the cut; after a seek, where the last one
    /// delivered stands in the index, so the counts do not depend on where reading started.
    public let packetsRead: Int
    /// Packets the container's index promised, when it has one (MP4/MOV sample tables; a WAV's data size).
    public let packetsExpected: Int?
    /// What the counts count.
    public let unit: Unit
    /// Where the intact part ends (the end of the last delivered packet), when known.
    public let end: MediaTime?
    /// How much of the track's declared duration is missing, when the container declares one.
    public let missing: MediaTime?
    /// What the container says that the file falls short of, where it lists no packets (a Matroska
    /// segment's size, an MP3's Xing byte count, an Ogg stream without its last page…), or what
    /// follows the last intact packet instead of more of them.
    public let reason: String?
    /// Bytes after the last intact packet that are no packet at all (junk appended to a raw
    /// stream): the track is whole up to them, and nothing after them was read.
    public let trailingBytes: Int64?
    /// Packets FFmpeg read from those bytes (a frame header's pattern in the junk) and handed on:
    /// a decoder skips what it cannot decode, a copy into MP4 what `aac_adtstoasc` rejects; other
    /// copies carry them as they are (as ffmpeg's).
    public let trailingPackets: Int

    /// A truncation report with each field as documented.
    public init(track: Int, packetsRead: Int, packetsExpected: Int?, end: MediaTime?, missing: MediaTime?,
                unit: Unit = .packets, reason: String? = nil, trailingBytes: Int64? = nil, trailingPackets: Int = 0) {
        self.track = track
        self.trailingPackets = trailingPackets
        self.reason = reason
        self.trailingBytes = trailingBytes
        self.packetsRead = packetsRead
        self.packetsExpected = packetsExpected
        self.end = end
        self.missing = missing
        self.unit = unit
    }

    /// "track 1 is cut short after 00:00:03.200: 102 of 250 packets are missing (2.4 s)".
    public var description: String {
        let after = end.map { " after \($0)" } ?? ""
        if let trailingBytes {
            let at = end.map { " at \($0)" } ?? ""
            let fate = trailingPackets == 0 ? "left out"
                : "FFmpeg read \(trailingPackets) packet\(trailingPackets == 1 ? "" : "s") from them: passed on, skipped where no valid frame"
            return "track \(track) ends\(at), followed by \(trailingBytes) bytes that are \(reason ?? "no media data") (\(fate))"
        }
        // Seconds that round to 0.0 say nothing (a WAV's duration already ends at the cut).
        let seconds = missing.flatMap { $0.seconds >= 0.05 ? "\(String(format1: $0.seconds)) s" : nil }
        var what: String
        if let packetsExpected {
            let count = packetsExpected - packetsRead
            what = "\(count) of \(packetsExpected) \(unit.rawValue) \(count == 1 ? "is" : "are") missing"
            if let seconds { what += " (\(seconds))" }
        } else if reason == nil {
            what = unit == .packets ? "its last packet is missing" : "part of its last sample frame is missing"
            if let seconds { what += " (\(seconds))" }
        } else if let seconds {
            what = "\(seconds) \(seconds == "1.0 s" ? "is" : "are") missing"
        } else {
            what = "the rest is missing"
        }
        if let reason { what += " (\(reason))" }
        return "track \(track) is cut short\(after): \(what)"
    }
}
