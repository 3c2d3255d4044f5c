// Syntax colours for the Lua scripts the Learn place shows: keywords, strings, comments, numbers and the
// Redis-specific names (redis.call, KEYS, ARGV), in colours that read on light and dark backgrounds.
#pragma once

#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>

class QPlainTextEdit;
class QWidget;
class LuaScript;

class LuaHighlighter : public QSyntaxHighlighter
{
    Q_OBJECT
public:
    LuaHighlighter(QTextDocument *document, bool dark);

    // A read-only, monospaced, highlighted view of `script` (Learn's and the Step tab's script tabs).
    static QPlainTextEdit *scriptView(const LuaScript &script, QWidget *parent);

protected:
    void highlightBlock(const QString &text) override;

private:
    struct Rule
    {
        QRegularExpression pattern;
        QTextCharFormat format;
    };
    QList<Rule> m_rules;
    QTextCharFormat m_comment;
    QTextCharFormat m_string;
};
