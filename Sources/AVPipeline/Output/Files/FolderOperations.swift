#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The names in `folder` (without `.` and `..`), or nil when it cannot be read.
func directoryEntryNames(_ folder: String) -> [String]? {
    guard let directory = opendir(folder) else { return nil }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
        // Read in place up to its NUL: a dirent may be shorter than the struct (d_reclen), so
        // copying all of d_name would read bytes readdir never wrote.
        let name = withUnsafePointer(to: &entry.pointee.d_name) { field in
            field.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: entry.pointee.d_name)) { String(cString: $0) }
        }
        if name != "." && name != ".." { names.append(name) }
    }
    return names
}

/// Gives the finished file at `from` the name `to`: replacing what is there with `overwrite`,
/// else never (`link` fails on an existing name, even one that appeared meanwhile).
func moveIntoPlace(_ from: String, _ to: String, overwrite: Bool) throws(AVPipelineError) {
    if overwrite {
        guard rename(from, to) == 0 else { throw .outputNotWritable(path: to, reason: errnoText()) }
    } else {
        guard link(from, to) == 0 else {
            if errno == EEXIST { throw .outputExists(path: to) }
            throw .outputNotWritable(path: to, reason: errnoText())
        }
        unlink(from)
    }
}

/// The folder an output series or stream goes into (`site/` of `site/index.m3u8`).
public enum OutputFolder {
    /// The folder `path` is in ("." for a bare name).
    public static func containing(_ path: String) -> String { AtomicOutputFile.folder(of: path) }

    /// Makes `folder` when it is missing but its parent exists, as a user writing into a new
    /// folder expects; only that last level, so that a mistyped path higher up is still an error.
    /// Returns whether it made it, so that a failed run can take it back (`removeIfMade`).
    public static func makeLastLevel(_ folder: String, for output: String) throws(AVPipelineError) -> Bool {
        var info = stat()
        if stat(folder, &info) == 0 { return false }
        let parent = AtomicOutputFile.folder(of: folder)
        guard stat(parent, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw .outputNotWritable(path: output, reason: "folder '\(parent)' does not exist")
        }
        guard mkdir(folder, 0o777) == 0 else {
            if errno == EEXIST { return false }  // made meanwhile by someone else: theirs
            throw .outputNotWritable(path: output, reason: errnoText())
        }
        return true
    }

    /// Removes a folder `makeLastLevel` made, if nothing is in it.
    public static func removeIfMade(_ folder: String, made: Bool) {
        if made { rmdir(folder) }
    }
}
