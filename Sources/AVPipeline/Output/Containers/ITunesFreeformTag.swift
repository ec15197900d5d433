/// Adds an iTunes freeform tag (`----` with mean `com.apple.iTunes`) to a finished MP4/M4A.
///
/// libavformat's mov muxer writes only its fixed list of iTunes tags (FFmpeg 5.1 to 7.1); `iTunSMPB`,
/// the gapless tag Apple's players and Media3 read, is not among them. So the tag goes into
/// `moov/udta/meta/ilst` after the muxer is done: the enclosing boxes grow, and when the index
/// precedes the media data (faststart) every chunk offset moves by the same amount and the bytes
/// after the index are shifted, in place, the way the muxer's own faststart pass moves them.
enum ITunesFreeformTag {
    static func insert(name: String, value: String, intoFileAt path: String) throws(AVPipelineError) {
        let fd = open(path, O_RDWR)
        guard fd >= 0 else { throw .outputWriteFailed(path: path, reason: errnoText()) }
        defer { close(fd) }
        let file = BoxFile(fd: fd, path: path)
        let top = try file.topLevelBoxes()
        guard let moov = top.first(where: { $0.type == "moov" }) else { throw file.malformed("no moov box") }
        var index = try file.read(at: moov.offset, count: Int(moov.size))
        guard let root = MP4Boxes.box(at: 0, in: index, limit: index.count),
              let chain = MP4Boxes.descend(["udta", "meta", "ilst"], in: index, from: root)
        else { throw file.malformed("no moov/udta/meta/ilst box") }

        let atom = freeformAtom(name: name, value: value)
        let delta = atom.count
        let ilst = chain.last!
        index.insert(contentsOf: atom, at: Int(ilst.offset + ilst.size))
        // Every size field sits before the insertion point, so the boxes' offsets still hold.
        for box in chain { try MP4Boxes.grow(box, by: delta, in: &index, path: path) }

        let mediaFollows = top.contains { $0.type == "mdat" && $0.offset > moov.offset }
        if mediaFollows { try MP4Boxes.shiftChunkOffsets(in: &index, by: Int64(delta), path: path) }
        let moovEnd = moov.offset + moov.size
        try file.shiftTail(from: moovEnd, by: Int64(delta))
        try file.write(index, at: moov.offset)
    }

    /// `----` { mean "com.apple.iTunes", name N, data (UTF-8) V }.
    static func freeformAtom(name: String, value: String) -> [UInt8] {
        func box(_ type: String, _ body: [UInt8]) -> [UInt8] { MP4Boxes.bigEndian(UInt32(8 + body.count)) + Array(type.utf8) + body }
        let fullBoxHeader: [UInt8] = [0, 0, 0, 0]
        let mean = box("mean", fullBoxHeader + Array("com.apple.iTunes".utf8))
        let label = box("name", fullBoxHeader + Array(name.utf8))
        let data = box("data", MP4Boxes.bigEndian(UInt32(1)) + [0, 0, 0, 0] + Array(value.utf8))  // type 1: UTF-8, locale 0
        return box("----", mean + label + data)
    }
}

/// The few ISO-BMFF box operations the tag insertion needs, on an in-memory `moov`.
enum MP4Boxes {
    struct Box {
        let type: String
        let offset: Int64
        let size: Int64
        let headerSize: Int
    }

    /// Boxes whose children follow a 4-byte version/flags field.
    private static let fullContainers: Set<String> = ["meta"]

    static func box(at offset: Int, in bytes: [UInt8], limit: Int) -> Box? {
        guard offset + 8 <= limit else { return nil }
        return box(at: offset, in: bytes, available: Int64(limit - offset))
    }

    /// The box whose header starts at `offset` in `bytes`, when it fits in the `available` bytes
    /// from there on, which may lie beyond `bytes` (a file's top-level box, read by its header).
    static func box(at offset: Int, in bytes: [UInt8], available: Int64) -> Box? {
        guard offset + 8 <= bytes.count else { return nil }
        let size32 = Int64(readUInt32(bytes, offset))
        let type = String(decoding: bytes[offset + 4 ..< offset + 8], as: UTF8.self)
        var size = size32, header = 8
        if size32 == 1 {
            guard offset + 16 <= bytes.count else { return nil }
            size = Int64(readUInt32(bytes, offset + 8)) << 32 | Int64(readUInt32(bytes, offset + 12))
            header = 16
        } else if size32 == 0 {
            size = available
        }
        guard size >= Int64(header), size <= available else { return nil }
        return Box(type: type, offset: Int64(offset), size: size, headerSize: header)
    }

    static func children(of parent: Box, in bytes: [UInt8]) -> [Box] {
        var offset = Int(parent.offset) + parent.headerSize + (fullContainers.contains(parent.type) ? 4 : 0)
        let end = Int(parent.offset + parent.size)
        var result: [Box] = []
        while let child = box(at: offset, in: bytes, limit: end) {
            result.append(child)
            offset += Int(child.size)
        }
        return result
    }

    /// `root` and the boxes down `types` (the first child of each type), outermost first.
    static func descend(_ types: [String], in bytes: [UInt8], from root: Box) -> [Box]? {
        var chain = [root]
        for type in types {
            guard let next = children(of: chain.last!, in: bytes).first(where: { $0.type == type }) else { return nil }
            chain.append(next)
        }
        return chain
    }

    static func grow(_ box: Box, by delta: Int, in bytes: inout [UInt8], path: String) throws(AVPipelineError) {
        let offset = Int(box.offset), newSize = box.size + Int64(delta)
        if box.headerSize == 16 {
            writeUInt32(UInt32(truncatingIfNeeded: newSize >> 32), into: &bytes, at: offset + 8)
            writeUInt32(UInt32(truncatingIfNeeded: newSize), into: &bytes, at: offset + 12)
        } else {
            guard newSize <= Int64(UInt32.max) else { throw .outputWriteFailed(path: path, reason: "'\(box.type)' box would exceed 4 GiB") }
            writeUInt32(UInt32(newSize), into: &bytes, at: offset)
        }
    }

    /// Moves every chunk offset (`stco`, `co64`) of every track by `delta`.
    static func shiftChunkOffsets(in bytes: inout [UInt8], by delta: Int64, path: String) throws(AVPipelineError) {
        guard let moov = box(at: 0, in: bytes, limit: bytes.count) else { return }
        for trak in children(of: moov, in: bytes) where trak.type == "trak" {
            guard let stbl = descend(["mdia", "minf", "stbl"], in: bytes, from: trak)?.last else { continue }
            for table in children(of: stbl, in: bytes) where table.type == "stco" || table.type == "co64" {
                let body = Int(table.offset) + table.headerSize + 4
                let count = Int(readUInt32(bytes, body))
                let wide = table.type == "co64"
                for entry in 0..<count {
                    let at = body + 4 + entry * (wide ? 8 : 4)
                    if wide {
                        let old = UInt64(readUInt32(bytes, at)) << 32 | UInt64(readUInt32(bytes, at + 4))
                        let new = old &+ UInt64(delta)
                        writeUInt32(UInt32(truncatingIfNeeded: new >> 32), into: &bytes, at: at)
                        writeUInt32(UInt32(truncatingIfNeeded: new), into: &bytes, at: at + 4)
                    } else {
                        let new = Int64(readUInt32(bytes, at)) + delta
                        guard new <= Int64(UInt32.max) else { throw .outputWriteFailed(path: path, reason: "a chunk offset would exceed 4 GiB") }
                        writeUInt32(UInt32(new), into: &bytes, at: at)
                    }
                }
            }
        }
    }

    static func readUInt32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
    }

    static func writeUInt32(_ value: UInt32, into bytes: inout [UInt8], at: Int) {
        bytes.replaceSubrange(at ..< at + 4, with: bigEndian(value))
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }
}

/// Positional reads and writes on an open MP4 file.
private struct BoxFile {
    let fd: Int32
    let path: String

    func malformed(_ reason: String) -> AVPipelineError { .outputWriteFailed(path: path, reason: "cannot add the gapless tag: \(reason)") }

    func size() throws(AVPipelineError) -> Int64 {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .outputWriteFailed(path: path, reason: errnoText()) }
        return Int64(info.st_size)
    }

    func topLevelBoxes() throws(AVPipelineError) -> [MP4Boxes.Box] {
        let end = try size()
        var offset: Int64 = 0, boxes: [MP4Boxes.Box] = []
        while offset + 8 <= end {
            let header = try read(at: offset, count: Int(min(16, end - offset)))
            guard let box = MP4Boxes.box(at: 0, in: header, available: end - offset) else {
                throw malformed("damaged box header at byte \(offset)")
            }
            boxes.append(MP4Boxes.Box(type: box.type, offset: offset, size: box.size, headerSize: box.headerSize))
            offset += box.size
        }
        return boxes
    }

    func read(at offset: Int64, count: Int) throws(AVPipelineError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let got = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
        guard got == count else { throw .outputWriteFailed(path: path, reason: got < 0 ? errnoText() : "short read") }
        return bytes
    }

    func write(_ bytes: [UInt8], at offset: Int64) throws(AVPipelineError) {
        let put = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, bytes.count, off_t(offset)) }
        guard put == bytes.count else { throw .outputWriteFailed(path: path, reason: put < 0 ? errnoText() : "short write") }
    }

    /// Moves the bytes from `start` to the end of the file `delta` bytes further, last chunk first.
    func shiftTail(from start: Int64, by delta: Int64) throws(AVPipelineError) {
        var end = try size()
        let chunk: Int64 = 1 << 20
        while end > start {
            let from = max(start, end - chunk)
            let bytes = try read(at: from, count: Int(end - from))
            try write(bytes, at: from + delta)
            end = from
        }
    }
}
