#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a display matrix into a finished MP4 file's track header (`tkhd`).
///
/// FFmpeg 5.1's hls muxer does not hand a stream's display matrix on to the mp4 muxer that
/// writes its fMP4 segments (7.1's does, through the codec parameters), so a portrait clip's init
/// segment would show it on its side. The matrix has a fixed place in `tkhd`, in the layout of
/// FFmpeg's display matrix (ISO/IEC 14496-12's, big-endian): it is overwritten in place and
/// nothing else moves.
enum TrackHeaderMatrix {
    /// Sets the matrix of the `trackIndex`-th track (from 0, in `moov` order) of the file at `path`.
    static func write(_ matrix: [Int32], track trackIndex: Int, intoFileAt path: String) throws(AVPipelineError) {
        let fd = open(path, O_RDWR)
        guard fd >= 0 else { throw .outputWriteFailed(path: path, reason: errnoText()) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .outputWriteFailed(path: path, reason: errnoText()) }
        // An init segment is a few kilobytes: read it whole.
        guard info.st_size <= 16 << 20 else { throw malformed(path, "larger than an init segment") }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        let got = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard got == bytes.count else { throw .outputWriteFailed(path: path, reason: got < 0 ? errnoText() : "short read") }

        var offset = 0
        var moov: MP4Boxes.Box?
        while let box = MP4Boxes.box(at: offset, in: bytes, limit: bytes.count), box.size > 0 {
            if box.type == "moov" { moov = box; break }
            offset += Int(box.size)
        }
        guard let moov else { throw malformed(path, "no moov box") }
        let traks = MP4Boxes.children(of: moov, in: bytes).filter { $0.type == "trak" }
        guard traks.indices.contains(trackIndex),
              let tkhd = MP4Boxes.children(of: traks[trackIndex], in: bytes).first(where: { $0.type == "tkhd" }) else {
            throw malformed(path, "no track header for track \(trackIndex + 1)")
        }
        // Version and flags, the times and IDs (64-bit times in version 1), then reserved, layer,
        // alternate group, volume and reserved (16 bytes), then the matrix.
        let body = Int(tkhd.offset) + tkhd.headerSize
        let at = body + 4 + (bytes[body] == 1 ? 32 : 20) + 16
        guard matrix.count == 9, at + 36 <= Int(tkhd.offset + tkhd.size) else { throw malformed(path, "a track header too short for a matrix") }
        let values = matrix.flatMap { MP4Boxes.bigEndian(UInt32(bitPattern: $0)) }
        let put = values.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(at)) }
        guard put == values.count else { throw .outputWriteFailed(path: path, reason: put < 0 ? errnoText() : "short write") }
    }

    private static func malformed(_ path: String, _ reason: String) -> AVPipelineError {
        .outputWriteFailed(path: path, reason: "cannot write the display matrix: \(reason)")
    }
}
