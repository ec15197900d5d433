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

extension ElementaryStreamCoverage {
    /// Damage after the last whole frame of an ADTS stream (junk appended, or a last frame cut
    /// short and the rest filled with zeros): where the run of ADTS frames that follow each other
    /// from the first packet ends, how many frames it holds and how many bytes follow it, when no
    /// frame run resumes after it. A resuming stream (a header whose frame ends at the next header
    /// or exactly at the file's end) means damage in the middle: nil. Junk may hold a header-like
    /// pattern (random bytes do, 1 in 16,384 positions), which FFmpeg reads as a packet; two in a
    /// row, length apart, are as good as never chance. Read from the file at the end of the
    /// stream, never per packet.
    func adtsTrailingDamage(in path: String) -> (end: Int64, frames: Int, bytes: Int64)? {
        guard let firstPosition, let tail = FileTail(path: path), let file = ChunkedFile(path: path) else { return nil }
        let fileEnd = tail.size - tail.trailingTagBytes
        var at = firstPosition, frames = 0
        while at < fileEnd, let length = file.adtsFrameLength(at: at), at + length <= fileEnd {
            at += length
            frames += 1
        }
        guard frames > 0, at < fileEnd else { return nil }
        for candidate in at..<fileEnd {
            guard let length = file.adtsFrameLength(at: candidate) else { continue }
            let next = candidate + length
            if next == fileEnd || (next < fileEnd && file.adtsFrameLength(at: next) != nil) { return nil }
        }
        return (at, frames, fileEnd - at)
    }
}

/// A file read forward through a 64 KiB window, for scans that look at every byte.
private final class ChunkedFile {
    private let fd: Int32
    private var window = [UInt8]()
    private var windowStart: Int64 = -1

    init?(path: String) {
        fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
    }

    deinit { close(fd) }

    /// The length an ADTS header at `offset` declares, when one is there: the sync word, layer 0,
    /// a sampling-frequency index in use and a length covering the header (9 bytes with a CRC).
    func adtsFrameLength(at offset: Int64) -> Int64? {
        guard byte(at: offset) == 0xFF, let b1 = byte(at: offset + 1), b1 & 0xF6 == 0xF0,
              let b2 = byte(at: offset + 2), (b2 >> 2) & 0x0F < 13,
              let b3 = byte(at: offset + 3), let b4 = byte(at: offset + 4), let b5 = byte(at: offset + 5),
              byte(at: offset + 6) != nil else { return nil }
        let length = Int64(b3 & 0x03) << 11 | Int64(b4) << 3 | Int64(b5) >> 5
        return length >= (b1 & 0x01 == 0 ? 9 : 7) ? length : nil
    }

    private func byte(at offset: Int64) -> UInt8? {
        if offset < windowStart || offset >= windowStart + Int64(window.count) {
            guard offset >= 0 else { return nil }
            window = [UInt8](repeating: 0, count: 65_536)
            let got = window.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 65_536, off_t(offset)) }
            window.removeLast(65_536 - max(got, 0))
            windowStart = offset
            guard !window.isEmpty else { return nil }
        }
        return window[Int(offset - windowStart)]
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
