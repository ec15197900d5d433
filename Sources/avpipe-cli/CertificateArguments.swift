import ArgumentParser
import AVPipeline
import Foundation

/// How connections over TLS check the server's certificate: against the system's authorities
/// unless told otherwise (FFmpeg's own default is not to check at all).
struct CertificateArguments: ParsableArguments {
    @Option(help: ArgumentHelp("https:// and rtmps:// inputs and outputs: trust the certificate authorities in this PEM file instead of the system's (a private or self-signed server).", valueName: "file"))
    var caFile: String?

    @Flag(help: "https:// and rtmps:// inputs and outputs: do not check the server's certificate (anyone on the way could read and change the stream).")
    var insecure = false

    func validate() throws {
        if insecure && caFile != nil { throw ValidationError("--insecure and --ca-file exclude each other") }
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw ValidationError("--ca-file: cannot read '\(caFile)'")
        }
    }

    var check: CertificateCheck {
        if insecure { return .none }
        return caFile.map { .authorities(file: $0) } ?? .system
    }
}
