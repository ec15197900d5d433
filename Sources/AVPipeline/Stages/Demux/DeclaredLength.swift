#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether a file is shorter than its container says, for containers without a packet index
/// (MP4's sample tables are checked packet by packet: `TrackReader`).
///
/// libavformat reads each of these fields but keeps them private (the Matroska segment's size, the
/// Xing byte count: its MP3 demuxer only logs "filesize and duration do not match"), so the few
/// bytes are read here. Only what the container *declares* counts; where it declares nothing the
/// cut cannot be told from an end:
/// - Matroska/WebM: the Segment's size, against the file's. A live-written file (unknown size)
///   declares nothing.
/// - MP3: the ID3v2 tag's size, and the Xing/Info or VBRI header's byte count (from that frame on,
///   as LAME and FFmpeg write it; one that counts the tag too is accepted). An MP3 without one
///   (plain CBR) declares nothing.
/// - Ogg: every logical stream ends with a page flagged end-of-stream (RFC 3533); a file that ends
///   inside a page, or after a page without the flag, was cut. Ogg declares no length, so how much
///   is missing is unknown.
/// - MPEG-TS declares no length (no PCR span or playlist says where it ends): only a cut inside a
///   188/192-byte packet shows, which is where almost every cut falls.
enum DeclaredLength {
    /// Why `source` is known to be cut short, or nil when it is whole or does not say.
    static func shortfall(of source: InputSource, formatName: String) -> String? {
        guard let bytes = InputBytes(source), bytes.size > 0 else { return nil }
        switch formatName {
        case "matroska,webm": return matroska(bytes)
        case "mp3": return mp3(bytes)
        case "ogg": return ogg(bytes)
        case "mpegts": return mpegTS(bytes)
        default: return nil
        }
    }

    private static func matroska(_ file: InputBytes) -> String? {
        // EBML header element, then the Segment: ID 0x18538067 and its size (all ones: unknown).
        guard let (headerID, headerSize, headerData) = file.ebmlElement(at: 0), headerID == 0x1A45_DFA3,
              let headerLength = headerSize,
              let (segmentID, segmentSize, segmentData) = file.ebmlElement(at: headerData + headerLength),
              segmentID == 0x1853_8067, let declared = segmentSize else { return nil }
        let end = segmentData + declared
        guard end > file.size else { return nil }
        return "its Segment declares \(end) bytes, the file has \(file.size)"
    }

    private static func mp3(_ file: InputBytes) -> String? {
        // ID3v2 tags first (each: "ID3", version, flags, a syncsafe size, a footer when flagged).
        var start: Int64 = 0
        while let tag = file.read(at: start, count: 10), tag.starts(with: Array("ID3".utf8)) {
            let size = tag[6...9].reduce(Int64(0)) { $0 << 7 | Int64($1 & 0x7F) }
            start += 10 + size + (tag[5] & 0x10 != 0 ? 10 : 0)
        }
        if start > file.size { return "its ID3v2 tag declares \(start) bytes, the file has \(file.size)" }
        // The first frame's header: MPEG audio layer III, where the Xing/Info/VBRI header lives.
        guard let header = file.read(at: start, count: 4), header[0] == 0xFF, header[1] & 0xE0 == 0xE0,
              header[1] & 0x06 == 0x02 else { return nil }
        let mpeg1 = header[1] & 0x18 == 0x18, mono = header[3] & 0xC0 == 0xC0
        let xingOffset: Int64 = 4 + (mpeg1 ? (mono ? 17 : 32) : (mono ? 9 : 17))
        var declared: Int64?
        if let xing = file.read(at: start + xingOffset, count: 16),
           xing.starts(with: Array("Xing".utf8)) || xing.starts(with: Array("Info".utf8)) {
            let flags = be32(xing, 4)
            // Frames (flag 1) come before the byte count (flag 2).
            if flags & 2 != 0 { declared = be32(xing, flags & 1 != 0 ? 12 : 8) }
        } else if let vbri = file.read(at: start + 36, count: 14), vbri.starts(with: Array("VBRI".utf8)) {
            declared = be32(vbri, 10)
        }
        guard let declared, declared > 0 else { return nil }
        let end = start + declared
        // A count that takes the ID3v2 tag in too (not LAME's way) ends exactly at the file's end,
        // or before an ID3v1 tag.
        guard end > file.size, declared != file.size, declared != file.size - 128 else { return nil }
        return "its MP3 header declares \(end) bytes, the file has \(file.size)"
    }

    private static func ogg(_ file: InputBytes) -> String? {
        // The last page: the "OggS" nearest the end whose header and segments end exactly at the end
        // of the file (a page is at most 65,307 bytes).
        // A tagger may have appended an ID3v1 tag (128 bytes, "TAG").
        let tagged = file.read(at: file.size - 128, count: 3).map { $0.elementsEqual("TAG".utf8) } ?? false
        let end = file.size - (tagged ? 128 : 0)
        let window = min(end, 65_307)
        guard let tail = file.read(at: end - window, count: Int(window)) else { return nil }
        var at = tail.count - 27
        while at >= 0 {
            defer { at -= 1 }
            guard tail[at] == 0x4F, tail[at + 1] == 0x67, tail[at + 2] == 0x67, tail[at + 3] == 0x53, tail[at + 4] == 0 else { continue }
            let segments = Int(tail[at + 26])
            guard at + 27 + segments <= tail.count else { continue }
            let body = tail[(at + 27)..<(at + 27 + segments)].reduce(0) { $0 + Int($1) }
            guard at + 27 + segments + body == tail.count else { continue }
            return tail[at + 5] & 0x04 != 0 ? nil : "its last Ogg page does not end the stream (no end-of-stream flag)"
        }
        return "it ends inside an Ogg page"
    }

    private static func mpegTS(_ file: InputBytes) -> String? {
        // 188-byte packets, or 192 (M2TS: a 4-byte timestamp first); the sync byte 0x47 repeats.
        guard let head = file.read(at: 0, count: min(Int(file.size), 4 * 192 + 5)) else { return nil }
        guard let size = [188, 192, 204].first(where: { size in
            let sync = size == 192 ? 4 : 0
            return stride(from: sync, to: head.count, by: size).prefix(4).allSatisfy { head[$0] == 0x47 }
                && head.count >= 2 * size + sync
        }) else { return nil }
        let remainder = file.size % Int64(size)
        guard remainder != 0 else { return nil }
        return "it ends \(remainder) bytes into a \(size)-byte MPEG-TS packet"
    }

    private static func be32(_ bytes: [UInt8], _ at: Int) -> Int64 {
        (0..<4).reduce(Int64(0)) { $0 << 8 | Int64(bytes[at + $1]) }
    }
}

/// Random access to an input's bytes: a file through `pread` (its descriptor closed with this
/// object), or the bytes held in memory.
final class InputBytes {
    let size: Int64
    private let fd: Int32
    private let memory: [UInt8]?

    init?(_ source: InputSource) {
        switch source {
        case .url, .device:
            return nil
        case .memory(_, let bytes):
            memory = bytes
            fd = -1
            size = Int64(bytes.count)
        case .file(let path):
            guard source.isRegularFile else { return nil }
            let fd = open(path, O_RDONLY)
            guard fd >= 0 else { return nil }
            var info = stat()
            guard fstat(fd, &info) == 0 else {
                _ = closeDescriptor(fd)
                return nil
            }
            self.fd = fd
            memory = nil
            size = Int64(info.st_size)
        }
    }

    deinit { if fd >= 0 { _ = closeDescriptor(fd) } }

    /// `count` bytes at `offset`, or nil when the file has fewer.
    func read(at offset: Int64, count: Int) -> [UInt8]? {
        guard offset >= 0, count >= 0, offset + Int64(count) <= size else { return nil }
        if let memory { return Array(memory[Int(offset)..<(Int(offset) + count)]) }
        var buffer = [UInt8](repeating: 0, count: count)
        let got = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
        return got == count ? buffer : nil
    }

    /// An EBML element at `offset`: its ID (with its length marker), its size (nil: unknown) and
    /// where its data starts.
    func ebmlElement(at offset: Int64) -> (id: UInt32, size: Int64?, data: Int64)? {
        guard let idBytes = read(at: offset, count: 4), let idLength = Self.vintLength(idBytes[0]), idLength <= 4,
              let sizeFirst = read(at: offset + Int64(idLength), count: 1), let sizeLength = Self.vintLength(sizeFirst[0]),
              let sizeBytes = read(at: offset + Int64(idLength), count: sizeLength) else { return nil }
        let id = idBytes.prefix(idLength).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let marker = UInt8(0x80) >> (sizeLength - 1)
        var value = UInt64(sizeBytes[0] & (marker &- 1))
        var allOnes = value == UInt64(marker &- 1)
        for byte in sizeBytes.dropFirst() {
            value = value << 8 | UInt64(byte)
            allOnes = allOnes && byte == 0xFF
        }
        return (id, allOnes || value > UInt64(Int64.max) ? nil : Int64(value), offset + Int64(idLength + sizeLength))
    }

    /// The length of an EBML variable-size integer from its first byte (its leading zeros + 1).
    private static func vintLength(_ first: UInt8) -> Int? {
        first == 0 ? nil : first.leadingZeroBitCount + 1
    }
}

private func closeDescriptor(_ fd: Int32) -> Int32 {
    #if canImport(Glibc)
    Glibc.close(fd)
    #else
    Darwin.close(fd)
    #endif
}
