//! Tests of decision question.
