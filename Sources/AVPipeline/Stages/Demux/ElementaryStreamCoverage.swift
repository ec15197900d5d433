/// Detects damage that FFmpeg's raw elementary-stream demuxers hide.
///
/// ADTS `.aac` and Annex B `.h264`/`.h265` files have no index: when FFmpeg meets a damaged frame
/// header it resynchronizes at the next one and the frame is silently gone (its parser even
/// renumbers packet positions, so no gap shows). But the packets of an intact raw stream tile the
/// file exactly, from the first packet to the end (checked on ffmpeg's own output and the reference
/// corpus), so bytes the packets do not cover are bytes that were skipped.
struct ElementaryStreamCoverage {
    /// libavformat demuxers whose packets tile the file.
    static let tilingFormats: Set<String> = ["aac", "h264", "hevc"]

    private var firstPosition: Int64?
    private var endPosition: Int64?
    private var coveredBytes: Int64 = 0

    mutating func count(position: Int64, size: Int) {
        if firstPosition == nil, position >= 0 { firstPosition = position }
        if position >= 0 { endPosition = position + Int64(size) }
        coveredBytes += Int64(size)
    }

    /// Bytes between the first packet and the end of `path` (less a trailing ID3v1/APE tag) that
    /// no packet covered. `tailCut`: the file ends inside a frame header, so the bytes after the
    /// last packet are that cut frame, not skipped damage.
    func skippedBytes(in path: String, tailCut: Bool = false) -> Int64 {
        guard let firstPosition else { return 0 }
        if tailCut { return (endPosition ?? firstPosition) - firstPosition - coveredBytes }
        guard let tail = FileTail(path: path) else { return 0 }
        return tail.size - tail.trailingTagBytes - firstPosition - coveredBytes
    }

    /// Where the skipped bytes start if they all follow the last packet (junk appended to a whole
    /// stream): the packets then tile the file from the first one up to there. Positions cannot
    /// tell (the parser renumbers them), so the file's bytes are checked: the last packet's last
    /// `lastBytes` bytes lie just before that point, and no frame starts there (`isFrameStart`:
    /// else FFmpeg would have read one). Damage in the middle shifts the stream, so neither holds.
    func trailingJunkStart(in path: String, lastBytes: [UInt8], isFrameStart: ([UInt8]) -> Bool) -> Int64? {
        guard let firstPosition, !lastBytes.isEmpty else { return nil }
        let start = firstPosition + coveredBytes
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: lastBytes.count + 2)
        let offset = start - Int64(lastBytes.count)
        guard offset >= 0, pread(fd, &bytes, bytes.count, off_t(offset)) == bytes.count else { return nil }
        return bytes.prefix(lastBytes.count).elementsEqual(lastBytes) && !isFrameStart(Array(bytes.suffix(2))) ? start : nil
    }
}

/// The size and trailing metadata tag of a file, read with two small `pread`s.
private struct FileTail {
    let size: Int64
    let trailingTagBytes: Int64

    init?(path: String) {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        size = Int64(info.st_size)
        var footer = [UInt8](repeating: 0, count: 128)
        guard size >= 128, pread(fd, &footer, 128, off_t(size - 128)) == 128 else {
            trailingTagBytes = 0
            return
        }
        if footer.starts(with: Array("TAG".utf8)) {
            trailingTagBytes = 128  // ID3v1
        } else if footer[96...].starts(with: Array("APETAGEX".utf8)) {
            // APEv2 footer: tag size (items + footer) at +12, "has header" flag in bit 31 of +20.
            let apeFooter = footer[96...]
            func le32(_ at: Int) -> Int64 {
                (0..<4).reduce(0) { $0 | Int64(apeFooter[apeFooter.startIndex + at + $1]) << (8 * $1) }
            }
            trailingTagBytes = le32(12) + ((le32(20) & 0x8000_0000) != 0 ? 32 : 0)
        } else {
            trailingTagBytes = 0
        }
    }
}
