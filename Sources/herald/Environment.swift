#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import HeraldApp

/// The process environment as a dictionary.
func processEnvironment() -> [String: String] {
    var result: [String: String] = [:]
    var entry = environ
    while let pointer = entry.pointee {
        let text = String(cString: pointer)
        if let equals = text.firstIndex(of: "=") {
            result[String(text[..<equals])] = String(text[text.index(after: equals)...])
        }
        entry += 1
    }
    return result
}

/// The configuration, or a plain-words exit when a variable is wrong.
func loadConfiguration() throws -> HeraldConfiguration {
    do {
        return try HeraldConfiguration(environment: processEnvironment())
    } catch {
        throw CommandFailure("configuration: \(error)")
    }
}
