// libFuzzer entry point for HeraldHTTP's request parser. Built by deploy/fuzz/run together with
// the parser's own source files (Sources/HeraldHTTP/Parser and Message, which touch no socket)
// and the test corpus, as one module, with -sanitize=fuzzer,address.
//
// Each input is parsed as a connection would see it, twice: all at once, and in two pieces split
// at a position the input chooses. Besides crashes and memory errors, the fuzzer reports any
// input where the two feedings disagree, or where the parser claims more bytes than it was given.

import Glibc

/// Small limits so that the fuzzer reaches every limit branch with short inputs.
private let fuzzLimits = HTTPParserLimits(maxRequestLineBytes: 200, maxHeaderBytes: 1024, maxHeaderCount: 12, maxBodyBytes: 2048)

/// What a sequence of parse calls produced, compared between feedings.
private struct Outcome: Equatable {
    var requests: [String] = []
    var error: HTTPParseError?
    var leftover = 0
}

private func run(_ pieces: [UnsafeBufferPointer<UInt8>]) -> Outcome {
    var parser = HTTPRequestParser(limits: fuzzLimits)
    var buffer: [UInt8] = []
    var outcome = Outcome()
    for piece in pieces {
        buffer.append(contentsOf: piece)
        parsing: while true {
            switch parser.parse(buffer) {
            case .needMore:
                break parsing
            case .request(let request, let consumed):
                precondition(consumed > 0 && consumed <= buffer.count, "consumed \(consumed) of \(buffer.count) bytes")
                precondition(request.body.count <= fuzzLimits.maxBodyBytes, "body over the limit")
                outcome.requests.append("\(request.method) \(request.target) \(request.headers) \(request.body) \(request.keepAlive)")
                buffer.removeFirst(consumed)
            case .error(let error):
                precondition([400, 413, 414, 431, 501, 505].contains(error.status), "unexpected status \(error.status)")
                outcome.error = error
                return outcome
            }
        }
    }
    outcome.leftover = buffer.count
    return outcome
}

@_cdecl("LLVMFuzzerTestOneInput")
public func parserFuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, size > 0 else { return 0 }
    let input = UnsafeBufferPointer(start: data, count: size)
    let whole = run([input])
    let split = Int(input[0]) * size / 256 + 1
    if split < size {
        let pieces = [UnsafeBufferPointer(rebasing: input[..<split]), UnsafeBufferPointer(rebasing: input[split...])]
        let halves = run(pieces)
        precondition(whole == halves, "feeding split at \(split) gave \(halves), all at once gave \(whole)")
    }
    return 0
}

/// With HERALD_FUZZ_WRITE_SEEDS=<dir>, writes the test corpus there as seed files and exits.
@_cdecl("LLVMFuzzerInitialize")
public func parserFuzzInitialize(_ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> Int32 {
    guard let directory = getenv("HERALD_FUZZ_WRITE_SEEDS").map({ String(cString: $0) }) else { return 0 }
    mkdir(directory, 0o755)
    var seeds = RequestCorpus.malformed.map { ($0.name, $0.bytes) }
    seeds += RequestCorpus.valid.enumerated().map { ("valid-\($0.offset)", $0.element) }
    for (name, bytes) in seeds {
        guard let file = fopen("\(directory)/\(name)", "wb") else { fatalError("cannot write \(directory)/\(name)") }
        _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        fclose(file)
    }
    print("wrote \(seeds.count) seeds to \(directory)")
    exit(0)
}
