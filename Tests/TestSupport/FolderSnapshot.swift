import Foundation

/// Every file under a folder with its bytes (paths relative to the folder, hidden files included):
/// compare two snapshots to prove a run created, changed or removed nothing.
public struct FolderSnapshot: Equatable, CustomStringConvertible {
    public let files: [String: Data]

    public init(_ folder: String) {
        var files: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: folder)
        while let relative = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: "\(folder)/\(relative)", isDirectory: &isDirectory)
            files[isDirectory.boolValue ? relative + "/" : relative] =
                isDirectory.boolValue ? Data() : readWholeFile("\(folder)/\(relative)") ?? Data("<unreadable>".utf8)
        }
        self.files = files
    }

    public var names: [String] { files.keys.sorted() }
    public var description: String { names.joined(separator: ", ") }
}

/// The bytes of a file, or nil if it cannot be opened. Not `FileManager.contents(atPath:)` or
/// `String(contentsOfFile:)`: on Linux those leak a 4 KiB buffer for every empty file they read
/// (FoundationEssentials' readBytesFromFile), which fails the AddressSanitizer run.
public func readWholeFile(_ path: String) -> Data? {
    guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? handle.close() }
    return handle.readDataToEndOfFile()
}

/// Whether process `pid` is writing an output in `folder` that has no name yet: an unnamed file
/// (O_TMPFILE, which /proc shows as `folder/#inode (deleted)`) or a hidden temporary file.
public func isWritingOutput(pid: Int32, in folder: String) -> Bool {
    // As /proc spells it: no doubled slashes, no symbolic links.
    var real = folder
    if let resolved = realpath(folder, nil) {
        real = String(cString: resolved)
        free(resolved)
    }
    let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
    for descriptor in descriptors {
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(descriptor)") else { continue }
        if target.hasPrefix(real + "/#") && target.hasSuffix("(deleted)") { return true }
    }
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    return names.contains { $0.hasPrefix(".") && $0.contains(".avpipe-") }
}
