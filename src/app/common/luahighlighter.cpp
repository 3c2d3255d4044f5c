// LuaHighlighter: a few regular expressions; strings and comments last so they win.
#include "luahighlighter.h"

#include "locks/luascript.h"
#include "timelinepalette.h"

#include <QFontDatabase>
#include <QPlainTextEdit>

LuaHighlighter::LuaHighlighter(QTextDocument *document, bool dark)
    : QSyntaxHighlighter(document)
{
    QTextCharFormat keyword;
    keyword.setForeground(dark ? QColor(0xff, 0x7b, 0x72) : QColor(0xcf, 0x22, 0x2e));
    keyword.setFontWeight(QFont::Bold);
    QTextCharFormat redis;
    redis.setForeground(dark ? QColor(0xd2, 0xa8, 0xff) : QColor(0x82, 0x50, 0xdf));
    QTextCharFormat number;
    number.setForeground(dark ? QColor(0x79, 0xc0, 0xff) : QColor(0x05, 0x50, 0xae));
    QTextCharFormat builtin;
    builtin.setForeground(dark ? QColor(0xff, 0xa6, 0x57) : QColor(0x95, 0x38, 0x00));
    m_string.setForeground(dark ? QColor(0xa5, 0xd6, 0xff) : QColor(0x0a, 0x30, 0x69));
    m_comment.setForeground(dark ? QColor(0x8b, 0x94, 0x9e) : QColor(0x6e, 0x77, 0x81));
    m_comment.setFontItalic(true);

    m_rules << Rule {QRegularExpression(QStringLiteral(
                         "\\b(and|break|do|else|elseif|end|false|for|function|if|in|local|nil|not|or|repeat|"
                         "return|then|true|until|while)\\b")),
                     keyword};
    m_rules << Rule {
        QRegularExpression(QStringLiteral("\\b(redis\\.call|redis\\.pcall|KEYS|ARGV|redis\\.error_reply|"
                                          "redis\\.status_reply)\\b")),
        redis};
    m_rules << Rule {QRegularExpression(QStringLiteral("\\b(tonumber|tostring|type|pairs|ipairs|table\\.\\w+|"
                                                       "string\\.\\w+|math\\.\\w+|unpack)\\b")),
                     builtin};
    m_rules << Rule {QRegularExpression(QStringLiteral("\\b\\d+(\\.\\d+)?\\b")), number};
}

void LuaHighlighter::highlightBlock(const QString &text)
{
    for (const Rule &rule : m_rules) {
        auto it = rule.pattern.globalMatch(text);
        while (it.hasNext()) {
            const QRegularExpressionMatch m = it.next();
            setFormat(int(m.capturedStart()), int(m.capturedLength()), rule.format);
        }
    }
    // Strings, then comments (a "--" inside a string is not a comment).
    static const QRegularExpression strings(QStringLiteral("\"(\\\\.|[^\"\\\\])*\"|'(\\\\.|[^'\\\\])*'"));
    QList<QPair<int, int>> stringSpans;
    auto it = strings.globalMatch(text);
    while (it.hasNext()) {
        const QRegularExpressionMatch m = it.next();
        setFormat(int(m.capturedStart()), int(m.capturedLength()), m_string);
        stringSpans.append({int(m.capturedStart()), int(m.capturedEnd())});
    }
    int from = 0;
    for (;;) {
        const int at = int(text.indexOf(QStringLiteral("--"), from));
        if (at < 0)
            break;
        bool inString = false;
        for (const auto &[a, b] : stringSpans)
            inString = inString || (at >= a && at < b);
        if (!inString) {
            setFormat(at, int(text.size()) - at, m_comment);
            break;
        }
        from = at + 2;
    }
}

QPlainTextEdit *LuaHighlighter::scriptView(const LuaScript &script, QWidget *parent)
{
    auto *editor = new QPlainTextEdit(parent);
    editor->setReadOnly(true);
    editor->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    editor->setLineWrapMode(QPlainTextEdit::NoWrap);
    editor->setPlainText(QString::fromUtf8(script.source()));
    new LuaHighlighter(editor->document(), TimelinePalette::forPalette(editor->palette()).dark);
    editor->setToolTip(tr("%1.lua, loaded with SCRIPT LOAD and run with EVALSHA (SHA1 %2)")
                           .arg(script.name(), QString::fromLatin1(script.sha1())));
    return editor;
}
