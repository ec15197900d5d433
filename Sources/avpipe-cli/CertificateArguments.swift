import ArgumentParser
import AVPipeline
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How connections over TLS check the server's certificate: against the system's authorities
/// unless told otherwise (FFmpeg's own default is not to check at all). `--ca-file` and
/// `--insecure` are declared where they are used (`InputOptions`, and `CertificateArguments` for
/// a command without inputs); this is what they mean.
struct CertificateChoice {
    var caFile: String?
    var insecure: Bool

    static let caFileHelp = ArgumentHelp("https:// and rtmps:// inputs and outputs: trust the certificate authorities in this PEM file instead of the system's (a private or self-signed server).", valueName: "file")
    static let insecureHelp = ArgumentHelp("https:// and rtmps:// inputs and outputs: do not check the server's certificate (anyone on the way could read and change the stream).")

    func validate() throws {
        if insecure && caFile != nil { throw ValidationError("--insecure and --ca-file exclude each other") }
        // access(2), not FileManager: Foundation costs every command ~19M instructions to load.
        if let caFile, access(caFile, R_OK) != 0 {
            throw ValidationError("--ca-file: cannot read '\(caFile)'")
        }
    }

    var check: CertificateCheck {
        if insecure { return .none }
        return caFile.map { .authorities(file: $0) } ?? .system
    }
}

/// `--ca-file` and `--insecure` for a command that has no `InputOptions` (`record`).
struct CertificateArguments: ParsableArguments {
    @Option(help: CertificateChoice.caFileHelp)
    var caFile: String?

    @Flag(help: CertificateChoice.insecureHelp)
    var insecure = false

    var choice: CertificateChoice { CertificateChoice(caFile: caFile, insecure: insecure) }
    func validate() throws { try choice.validate() }
    var check: CertificateCheck { choice.check }
}
