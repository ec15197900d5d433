#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where an HLS stream is written: a playlist (`NAME.m3u8`) and its segments (`NAME0.ts`…, or
/// `NAME-init.mp4` + `NAME0.m4s`…) in the playlist's folder, named by us so that none can land
/// elsewhere.
///
/// A VOD stream is written into a hidden folder beside them (`.NAME.m3u8.avpipe-PID-XXXXXX`) and
/// moved into place when complete, segments first and the playlist last, so a reader never sees a
/// playlist naming a segment that is not there, and a failed run leaves nothing (a killed one
/// leaves the hidden folder, which the next output made in that folder removes). A live stream (a
/// window) and a growing one (a recording, `HLSOptions.growing`) are written in place from the
/// start: the muxer writes each segment and playlist under a temporary name and renames it, so a
/// stopped or killed run leaves a playlist that ends with its last finished segment.
final class HLSFolder {
    let playlistPath: String
    let folder: String
    /// The playlist's name without `.m3u8`: every segment name starts with it.
    let stem: String
    /// A live stream: a window of the last segments, the older ones deleted.
    let live: Bool
    /// A recording: every segment kept and listed as it is finished.
    let growing: Bool
    private let overwrite: Bool
    /// Whether the stream's folder was made for it (and goes if the stream fails).
    private let madeFolder: Bool
    /// Where the muxer writes: the staging folder (VOD) or the target folder (live).
    let writingFolder: String
    private var committed = false

    init(playlistPath: String, live: Bool, growing: Bool = false, overwrite: Bool) throws(AVPipelineError) {
        let name = playlistPath.split(separator: "/").last.map(String.init) ?? playlistPath
        // '..' is harmless in the folder (`../out/index.m3u8`), and the segments' names, made of
        // the playlist's name, hold no '/' to climb with.
        guard name.lowercased().hasSuffix(".m3u8"), name.count > 5 else {
            throw .invalidOption(name: "playlist", value: playlistPath, reason: "an HLS playlist is named NAME.m3u8")
        }
        let stem = String(name.dropLast(5))
        let folder = AtomicOutputFile.folder(of: playlistPath)
        // The playlist lists the segments by name, and players read those as URIs, where '%'
        // starts an escape (GStreamer's hlsdemux fails on "50%off0.ts"), '#' a fragment and '?'
        // a query (served over HTTP, "a#b0.ts" is fetched as "a"); the muxer writes them
        // unescaped. A control character (a newline) would break the playlist's lines.
        if let bad = stem.first(where: { "%#?".contains($0) || ($0.asciiValue ?? 0x20) < 0x20 }) {
            let shown = "%#?".contains(bad) ? "'\(bad)'" : "a control character"
            throw .invalidOption(name: "playlist", value: playlistPath,
                                 reason: "\(shown) in the name is not allowed: the segments are named after it and players read their names as URIs")
        }
        guard Self.templatePlaceholders("\(folder)/%d") == 1, !folder.lowercased().contains("%v") else {
            throw .invalidOption(name: "playlist", value: playlistPath,
                                 reason: "FFmpeg's hls muxer reads '%d', '%v' (and '%' + digits + 'd') in the folder as placeholders, with no escape: rename the folder")
        }
        self.playlistPath = playlistPath
        self.folder = folder
        self.stem = stem
        self.live = live
        self.growing = growing
        self.overwrite = overwrite
        // The stream's folder is made when only its last level is missing (`hls in.mp4 --out
        // site/index.m3u8` in a fresh folder), and removed again if the stream fails.
        let madeFolder = try OutputFolder.makeLastLevel(folder, for: playlistPath)
        do throws(AVPipelineError) {
            var info = stat()
            if stat(folder, &info) != 0 || (info.st_mode & S_IFMT) != S_IFDIR {
                throw .outputNotWritable(path: playlistPath, reason: "folder '\(folder)' does not exist")
            }
            guard access(folder, W_OK) == 0 else { throw .outputNotWritable(path: playlistPath, reason: errnoText()) }
            if !overwrite, let existing = try Self.ownFiles(in: folder, stem: stem).first {
                throw .outputExists(path: "\(folder)/\(existing)")
            }
        } catch {
            OutputFolder.removeIfMade(folder, made: madeFolder)
            throw error
        }
        self.madeFolder = madeFolder
        StaleTemporaryFiles.remove(in: folder)
        if live || growing {
            writingFolder = folder
            return
        }
        var template = Array("\(folder)/.\(name)\(StaleTemporaryFiles.marker(pid: getpid()))XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            let reason = errnoText()
            OutputFolder.removeIfMade(folder, made: madeFolder)
            throw .outputNotWritable(path: playlistPath, reason: reason)
        }
        writingFolder = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    deinit {
        guard !committed else { return }
        if growing, access(writingPlaylist, F_OK) == 0 {
            // A recording that failed keeps what it published, as a killed one does.
            return
        }
        if live || growing {
            // A live stream that failed: what it published goes too (a stopped one is committed).
            for name in (try? Self.ownFiles(in: folder, stem: stem)) ?? [] { unlink("\(folder)/\(name)") }
        } else {
            Self.removeFolder(writingFolder)
        }
        OutputFolder.removeIfMade(folder, made: madeFolder)
    }

    /// Checks what the muxer wrote before it is published: libavformat's hls muxer does not report
    /// a segment or playlist it failed to write (a full disk gives exit 0 and no playlist). The
    /// playlist must be there (ending, for VOD), every segment it names present and not empty,
    /// and, for VOD, the segments at least as large as the media written into them.
    func verify(payloadBytes: Int) throws(AVPipelineError) {
        let playlist = writingPlaylist
        let fd = open(playlist, O_RDONLY)
        guard fd >= 0 else {
            throw .outputWriteFailed(path: playlistPath, reason: "the playlist was not written (\(errnoText()))")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            bytes += chunk[..<count]
        }
        close(fd)
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
        if !live && !lines.contains("#EXT-X-ENDLIST") {
            throw .outputWriteFailed(path: playlistPath, reason: "the playlist was cut short (a write failed: is the disk full?)")
        }
        var total = 0
        for name in lines where !name.hasPrefix("#") && !name.isEmpty {
            var info = stat()
            guard stat("\(writingFolder)/\(name)", &info) == 0, info.st_size > 0 else {
                throw .outputWriteFailed(path: playlistPath, reason: "segment '\(name)' was not written (a write failed: is the disk full?)")
            }
            total += Int(info.st_size)
        }
        if !live && total < payloadBytes {
            throw .outputWriteFailed(path: playlistPath, reason: "the segments hold less than the media written into them (a write failed: is the disk full?)")
        }
    }

    /// The playlist the muxer writes.
    var writingPlaylist: String { "\(writingFolder)/\(stem).m3u8" }
    /// The muxer's segment name pattern (`%d` counts from 0; see `templatePlaceholders`).
    func segmentPattern(fmp4: Bool) -> String { "\(writingFolder)/\(stem)%d.\(fmp4 ? "m4s" : "ts")" }
    /// The fMP4 initialization segment, named relative to the playlist (as the muxer wants it).
    var initName: String { "\(stem)-init.mp4" }

    /// Written in place as it goes (live or growing), not published at the end.
    var inPlace: Bool { live || growing }

    /// Moves a finished VOD stream into place: segments, then the playlist.
    func commit() throws(AVPipelineError) {
        guard !inPlace else { committed = true; return }
        let files = try Self.ownFiles(in: writingFolder, stem: stem)
        for file in files.filter({ !$0.hasSuffix(".m3u8") }) + files.filter({ $0.hasSuffix(".m3u8") }) {
            try moveIntoPlace("\(writingFolder)/\(file)", "\(folder)/\(file)", overwrite: overwrite)
        }
        committed = true
        Self.removeFolder(writingFolder)
    }

    /// The playlist, segments and init segment of stream `stem` in `folder`.
    static func ownFiles(in folder: String, stem: String) throws(AVPipelineError) -> [String] {
        guard let names = directoryEntryNames(folder) else { throw .outputNotWritable(path: folder, reason: errnoText()) }
        return names.filter { isOwn($0, stem: stem) }
    }

    /// `STEM.m3u8`, `STEM-init.mp4`, or `STEM` + digits + `.ts`/`.m4s` (or one of them being
    /// written under its temporary `.tmp` name).
    static func isOwn(_ name: String, stem: String) -> Bool {
        if name.hasSuffix(".tmp") { return isOwn(String(name.dropLast(4)), stem: stem) }
        if name == "\(stem).m3u8" || name == "\(stem)-init.mp4" { return true }
        guard name.hasPrefix(stem) else { return false }
        let rest = name.dropFirst(stem.count)
        for suffix in [".ts", ".m4s"] where rest.hasSuffix(suffix) {
            let number = rest.dropLast(suffix.count)
            return !number.isEmpty && number.allSatisfy(\.isNumber)
        }
        return false
    }

    /// How many numbers the hls muxer puts into segment name template `template`. FFmpeg 5.1's
    /// `replace_int_data_in_filename` replaces every `%d`/`%0Nd` and copies `%%` as it is (so
    /// doubling is no escape), and its `%v` (variant) substitution applies to the playlist's path
    /// too: a folder holding either would send the files elsewhere.
    static func templatePlaceholders(_ template: String) -> Int {
        let bytes = Array(template.utf8)
        var index = 0, count = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "%"), index + 1 < bytes.count else { index += 1; continue }
            if bytes[index + 1] == UInt8(ascii: "%") { index += 2; continue }
            var end = index + 1
            while end < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[end]) { end += 1 }
            if end < bytes.count, bytes[end] == UInt8(ascii: "d") {
                count += 1
                end += 1
            }
            index = end
        }
        return count
    }

    /// Removes a staging folder and the flat files in it.
    static func removeFolder(_ path: String) {
        for name in directoryEntryNames(path) ?? [] { unlink("\(path)/\(name)") }
        rmdir(path)
    }
}
