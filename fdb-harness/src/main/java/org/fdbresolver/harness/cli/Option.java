package org.fdbresolver.harness.cli;

/**
 * One option a command accepts, for parsing and {@code --help}.
 *
 * @param name        without the leading dashes
 * @param valueName   what the value is ({@code "N"}, {@code "FILE"}), or {@code null} for a flag
 * @param description one line for {@code --help}, including the default
 */
record Option(String name, String valueName, String description) {
    static Option flag(String name, String description) {
        return new Option(name, null, description);
    }

    static Option value(String name, String valueName, String description) {
        return new Option(name, valueName, description);
    }

    boolean isFlag() {
        return valueName == null;
    }
}
