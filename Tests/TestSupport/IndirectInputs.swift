import Foundation

/// Crafted inputs that name other inputs (an HLS playlist, an ffconcat list): what a safe-by-default
/// reader must refuse. Each is written into `folder` and returns its path.
public enum IndirectInputs {
    /// A media playlist with one segment per entry (local paths, relative or absolute, or URLs).
    public static func playlist(_ folder: TemporaryDirectory, _ name: String = "list.m3u8", entries: [String]) throws -> String {
        var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:0\n"
        for entry in entries { text += "#EXTINF:1.0,\n\(entry)\n" }
        text += "#EXT-X-ENDLIST\n"
        return try write(text, to: folder.file(name))
    }

    /// An ffconcat script listing `entries`.
    public static func concatList(_ folder: TemporaryDirectory, _ name: String = "list.ffconcat", entries: [String]) throws -> String {
        let text = "ffconcat version 1.0\n" + entries.map { "file '\($0)'\n" }.joined()
        return try write(text, to: folder.file(name))
    }

    /// A one-second AAC-in-MPEG-TS segment (what a playlist would name).
    public static func segment(_ path: String) throws -> String {
        try MediaFactory.ffmpeg(["-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=1",
                                 "-c:a", "aac", "-b:a", "64k", path])
        return path
    }

    private static func write(_ text: String, to path: String) throws -> String {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }
}
