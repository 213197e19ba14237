extension String {
    /// The text of UTF-8 bytes, nil when they are not valid UTF-8. `String(validating:as:)` is
    /// generic and ran unspecialised, about 13,000 instructions a string; decoding (which repairs
    /// with U+FFFD) and comparing the result with the input is exact and far cheaper.
    public static func validUTF8(_ utf8: UnsafeBufferPointer<UInt8>) -> String? {
        let text = String(decoding: utf8, as: UTF8.self)
        // Compared as buffers (a native string's UTF-8 is contiguous): walking the UTF-8 view
        // cost several instructions a byte, a tenth of an import's reading.
        let same = text.utf8.withContiguousStorageIfAvailable { $0.elementsEqual(utf8) } ?? text.utf8.elementsEqual(utf8)
        return same ? text : nil
    }
}
