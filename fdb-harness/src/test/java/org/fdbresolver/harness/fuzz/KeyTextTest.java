package org.fdbresolver.harness.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.ByteString;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class KeyTextTest {
    private static String of(byte... bytes) {
        return KeyText.of(ByteString.copyFrom(bytes));
    }

    @Test
    void printableBytesAsTheyAreOthersEscaped() {
        assertEquals("\"\"", of());
        assertEquals("\"abc\"", of((byte) 'a', (byte) 'b', (byte) 'c'));
        assertEquals("\"a\\x00\"", of((byte) 'a', (byte) 0));
        assertEquals("\"\\xff\\x7f \\\"\\\\\"", of((byte) 0xFF, (byte) 0x7F, (byte) ' ', (byte) '"', (byte) '\\'));
    }

    @Test
    void longRunsAreCounted() {
        byte[] k = new byte[10242];
        Arrays.fill(k, (byte) 'a');
        k[0] = 'k';
        k[10241] = 0;
        assertEquals("\"k\" \"a\"*10240 \"\\x00\"", of(k));
        byte[] seven = new byte[7];
        Arrays.fill(seven, (byte) 0xFF);
        assertEquals("\"\\xff\\xff\\xff\\xff\\xff\\xff\\xff\"", of(seven), "a run shorter than eight stays literal");
        assertEquals("[\"a\", \"a\\x00\")", KeyText.range(ByteString.copyFromUtf8("a"), ByteString.copyFrom(new byte[] {'a', 0})));
    }
}
