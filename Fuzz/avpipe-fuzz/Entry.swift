#if canImport(Glibc)
import Glibc
#endif
import CFFmpeg

/// Which harness runs: `AVPIPE_FUZZ_TARGET` (demux, presentation-order, nal-scan, json).
let selectedHarness: Harness = {
    av_log_set_level(AV_LOG_QUIET)
    let name = getenv("AVPIPE_FUZZ_TARGET").map { String(cString: $0) } ?? "demux"
    guard let harness = Harness(rawValue: name) else {
        fatalError("AVPIPE_FUZZ_TARGET=\(name): expected one of \(Harness.allCases.map(\.rawValue))")
    }
    return harness
}()

#if AVPIPE_LIBFUZZER
/// libFuzzer's entry point (the binary is linked with -sanitize=fuzzer, which provides main).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    selectedHarness.run(bytes)
    return 0
}
#else
/// Without libFuzzer: replays files through a harness (`avpipe-fuzz demux seed1 seed2…`), to check
/// a corpus or a crashing input in an ordinary build.
@main enum Replay {
    static func main() {
        let arguments = CommandLine.arguments.dropFirst()
        guard let name = arguments.first, let harness = Harness(rawValue: name) else {
            print("usage: avpipe-fuzz <\(Harness.allCases.map(\.rawValue).joined(separator: "|"))> file…")
            exit(64)
        }
        av_log_set_level(AV_LOG_QUIET)
        var count = 0
        for path in arguments.dropFirst() {
            guard let file = fopen(path, "rb") else { print("cannot open \(path)"); exit(66) }
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while true {
                let read = fread(&chunk, 1, chunk.count, file)
                if read <= 0 { break }
                bytes += chunk[0..<read]
            }
            fclose(file)
            harness.run(bytes)
            count += 1
        }
        print("\(harness.rawValue): \(count) inputs ran clean")
    }
}
#endif
