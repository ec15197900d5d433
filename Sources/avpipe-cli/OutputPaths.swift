import ArgumentParser
import AVPipeline
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

enum OutputPaths {
    /// `-` as an output: standard output, written as a stream (ADTS, Annex B, WAV, YUV4MPEG2).
    static let standardOutput = "-"

    /// Refuses a second output to standard output (the streams would interleave into garbage).
    static func ensureOneStandardOutput(_ outputs: [String?]) throws {
        if outputs.filter({ $0 == standardOutput }).count > 1 {
            throw ValidationError("only one output can go to standard output ('-')")
        }
    }

    /// The lower-cased extension of `path` ("" when it has none).
    static func fileExtension(_ path: String) -> String { Container.fileExtension(of: path) }

    /// Refuses to write over the input: the output is written beside it and renamed, which would
    /// replace the very file being read.
    static func ensureDistinct(input: String, output: String) throws {
        var a = stat(), b = stat()
        guard stat(input, &a) == 0, stat(output, &b) == 0 else { return }
        if a.st_dev == b.st_dev && a.st_ino == b.st_ino {
            throw ValidationError("the output '\(output)' is the input file")
        }
    }
}
